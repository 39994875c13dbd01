import CSRTP

/// One direction of SRTP (RFC 3711) for one peer: a libsrtp2 session that either
/// protects everything this side sends (`.sender`) or unprotects everything it receives
/// (`.receiver`), RTP and RTCP, for any SSRC.
///
/// Policy: libsrtp `ssrc_any_outbound` / `ssrc_any_inbound`, replay window of 1024
/// packets, `allow_repeat_tx` off (a sender never protects one index twice: OTKit's
/// publisher answers a NACK by resending the bytes it already protected, see
/// `RetransmissionStore`) unless `allowRepeatedIndex` (a relayed publisher's per-receiver
/// contexts, which protect each resend of the same plain bytes anew). No MKI.
///
/// Buffers: everything happens in place. A caller that protects must reserve trailer room
/// after the packet up front — `SRTPProfile.maxTrailer` (20) bytes suits every profile —
/// typically by making every pooled packet buffer MTU + 20 bytes.
///
/// Threads: libsrtp's `srtp_t` is not thread-safe, so use a session from one thread at a
/// time (the pipeline thread of its direction). It is `@unchecked Sendable` so it can be
/// handed to that thread. `counters` may be read from any thread at any time.
///
/// Cost: `init` derives the session keys (a few AES blocks) and allocates libsrtp's
/// context. The first packet of each new SSRC makes libsrtp clone its stream template (one
/// allocation); after that `protect` and `unprotect` allocate nothing in Swift, and cost
/// the libsrtp call (on the OpenSSL primitives `SRTPLibrary` installs in libsrtp2,
/// measured by `otbench transport`: about 0.7 µs per 1200-byte packet with GCM, 1.25 µs
/// with AES-CM + HMAC-SHA1, no allocation) plus a header check and one relaxed atomic add.
public final class SRTPSession: @unchecked Sendable {
    /// Which way the session's packets travel.
    public enum Direction: Sendable, Hashable {
        /// Protects outbound RTP and RTCP (libsrtp `ssrc_any_outbound`).
        case sender
        /// Unprotects inbound SRTP and SRTCP (libsrtp `ssrc_any_inbound`), with replay checks.
        case receiver
    }

    /// Packets of replay window: an inbound packet this far behind the newest is `tooOld`.
    public static let replayWindow = 1024

    /// The profile of the key material.
    public let profile: SRTPProfile
    /// The direction this session works in.
    public let direction: Direction
    /// Packets protected, unprotected and dropped, readable from any thread.
    public let counters: SRTPCounters

    /// libsrtp's session (`srtp_t`).
    private let context: OpaquePointer

    /// Creates a session from key material. Throws `libraryFailure` if libsrtp refuses
    /// (e.g. a profile its crypto backend lacks). `allowRepeatedIndex` (senders only, libsrtp
    /// `allow_repeat_tx`) lets one packet index be protected again: for a sender that keeps
    /// plain packets and protects each resend of the same bytes anew (a relayed publisher's
    /// per-receiver keys); the same plaintext under the same index gives the same bytes, so
    /// nothing leaks.
    public init(keys: SRTPKeyMaterial, direction: Direction, allowRepeatedIndex: Bool = false) throws(SRTPError) {
        SRTPLibrary.ensureInitialized()
        var policy = srtp_policy_t()
        SRTPLibrary.setCryptoPolicy(&policy, for: keys.profile)
        policy.ssrc.type = direction == .sender ? ssrc_any_outbound : ssrc_any_inbound
        policy.window_size = UInt(Self.replayWindow)
        policy.allow_repeat_tx = direction == .sender && allowRepeatedIndex ? 1 : 0
        policy.next = nil
        var keyBytes = keys.keyAndSalt
        var created: srtp_t?
        let status = keyBytes.withUnsafeMutableBufferPointer { key in
            policy.key = key.baseAddress
            return srtp_create(&created, &policy)
        }
        // libsrtp has derived its own session keys; do not leave a copy of the master key behind.
        for index in keyBytes.indices { keyBytes[index] = 0 }
        guard status == srtp_err_status_ok, let created else { throw SRTPLibrary.error(status) }
        context = created
        profile = keys.profile
        self.direction = direction
        counters = SRTPCounters()
    }

    deinit {
        srtp_dealloc(context)
    }

    /// Protects the RTP packet in the first `length` bytes of `buffer` in place: encrypts
    /// the payload and appends the tag. Returns the SRTP length (`length +
    /// profile.rtpTrailer`).
    ///
    /// `buffer` must have the trailer's room after `length` (reserve
    /// `SRTPProfile.maxTrailer`), else `bufferTooSmall` and nothing is written. A packet
    /// whose header runs past `length` is `badParameter`. Sender sessions only.
    @inline(__always)
    public func protect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .sender else { throw fail(.wrongDirection) }
        guard let base = buffer.baseAddress, length >= 0, length <= buffer.count,
              SRTPPacketCheck.rtpHeaderLength(base, length: length) != nil else { throw fail(.badParameter) }
        try checkRoom(buffer.count, length: length, trailer: profile.rtpTrailer)
        var octets = Int32(length)
        let status = srtp_protect(context, base, &octets)
        guard status == srtp_err_status_ok else { throw fail(SRTPLibrary.error(status)) }
        counters.countProtected()
        return Int(octets)
    }

    /// Unprotects the SRTP packet in the first `length` bytes of `buffer` in place:
    /// checks the tag and the replay window, decrypts, and returns the RTP length (the
    /// trailer removed).
    ///
    /// On any error the packet must be dropped and the buffer not trusted (GCM may have
    /// decrypted it in place before the tag failed); the error is counted in `counters`.
    /// Receiver sessions only.
    @inline(__always)
    public func unprotect(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .receiver else { throw fail(.wrongDirection) }
        guard let base = buffer.baseAddress, length >= 0, length <= buffer.count, length <= Int(Int32.max),
              let header = SRTPPacketCheck.rtpHeaderLength(base, length: length),
              header + profile.rtpTagLength <= length else { throw fail(.badParameter) }
        var octets = Int32(length)
        let status = srtp_unprotect(context, base, &octets)
        guard status == srtp_err_status_ok else { throw fail(SRTPLibrary.error(status)) }
        counters.countUnprotected()
        return Int(octets)
    }

    /// Protects the RTCP packet (a compound packet as a whole) in the first `length` bytes
    /// of `buffer` in place: encrypts all but the first 8 bytes, appends the SRTCP index
    /// and the tag. Returns `length + profile.rtcpTrailer`. Room as for `protect`.
    @inline(__always)
    public func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .sender else { throw fail(.wrongDirection) }
        guard let base = buffer.baseAddress, length >= 0, length <= buffer.count,
              SRTPPacketCheck.isRTCP(base, length: length) else { throw fail(.badParameter) }
        try checkRoom(buffer.count, length: length, trailer: profile.rtcpTrailer)
        var octets = Int32(length)
        let status = srtp_protect_rtcp(context, base, &octets)
        guard status == srtp_err_status_ok else { throw fail(SRTPLibrary.error(status)) }
        counters.countProtected()
        return Int(octets)
    }

    /// Unprotects the SRTCP packet in the first `length` bytes of `buffer` in place and
    /// returns the RTCP length. Errors as for `unprotect`.
    @inline(__always)
    public func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: Int) throws(SRTPError) -> Int {
        guard direction == .receiver else { throw fail(.wrongDirection) }
        guard let base = buffer.baseAddress, length >= 0, length <= buffer.count, length <= Int(Int32.max),
              SRTPPacketCheck.isRTCP(base, length: length),
              length >= SRTPPacketCheck.rtcpMinimumLength + profile.rtcpTrailer else { throw fail(.badParameter) }
        var octets = Int32(length)
        let status = srtp_unprotect_rtcp(context, base, &octets)
        guard status == srtp_err_status_ok else { throw fail(SRTPLibrary.error(status)) }
        counters.countUnprotected()
        return Int(octets)
    }

    /// Throws `bufferTooSmall` unless `capacity` holds `length` plus the trailer and the
    /// result still fits libsrtp's `int` length.
    @inline(__always)
    private func checkRoom(_ capacity: Int, length: Int, trailer: Int) throws(SRTPError) {
        let needed = length + trailer
        guard needed <= capacity else { throw fail(.bufferTooSmall(needed: needed, available: capacity)) }
        guard needed <= Int(Int32.max) else { throw fail(.badParameter) }
    }

    /// Counts `error` and returns it, for `throw fail(…)`.
    private func fail(_ error: SRTPError) -> SRTPError {
        counters.count(error)
        return error
    }
}
