import CSSL

/// One DTLS-SRTP association for one media leg (RFC 5764, RFC 8827), driven by the
/// caller's thread: no threads, no blocking, no clock of its own.
///
/// Drive it like this, from one thread at a time (a router worker):
/// - `start(now:)` once (the client sends its ClientHello; the server just arms its deadline);
/// - every DTLS datagram from the peer (first byte 20–63, RFC 7983) to `receive(_:now:)`;
/// - wake at `nextTimeout(now:)` and call `handleTimeout(now:)` (flight retransmission,
///   starting at 50 ms and doubling to 3 s; the handshake deadline);
/// - after each call send `outgoingCount` datagrams (`outgoingDatagram(_:)`), one UDP
///   datagram each, before the next call (they live in storage the transport reuses);
/// - each call returns the new `DTLSState` when it changed, else nil.
///
/// Once `.connected`, `srtpKeys` holds the SRTP keys split for this role. The peer's
/// certificate must hash to `remoteFingerprint` (from its SDP), else `.failed(
/// .fingerprintMismatch)`; no common SRTP profile is `.failed(.noCommonSRTPProfile)`; a
/// handshake not finished by `handshakeTimeout` after `start` is `.failed(
/// .handshakeTimedOut)`. Failing or closing frees the SSL object at once.
///
/// Hostile input: datagrams that are not DTLS records are counted and dropped before
/// OpenSSL; on the server, anything OpenSSL rejects before it accepted a ClientHello
/// resets the SSL object (counted) rather than failing the leg; once connected, only
/// authenticated (epoch ≥ 1) records reach OpenSSL, and an OpenSSL error releases the
/// SSL object without ending the leg (see `counters.associationErrorsAfterHandshake`). Numbers from the wire are
/// OpenSSL's to check; this type only moves bytes.
///
/// Retransmission timing note: OpenSSL measures its timer on its own monotonic clock, so
/// `handleTimeout` resends only once that clock agrees the timer ran out; `now` is used for
/// the handshake deadline and to turn OpenSSL's remaining time into a deadline.
///
/// Cost: `init` one `SSL_new` and two memory BIOs (a few allocations, ~16 KB of reusable
/// output storage); a handshake about 2 ms of CPU per side (P-256 ECDHE + ECDSA); after it,
/// `receive` of a DTLS record allocates nothing in Swift, and the idle association keeps
/// ~50 KB less (OpenSSL's record buffers and most of the output storage are given back;
/// OpenSSL sets its buffers up again for an authenticated record). Never logs; keys never
/// appear in any description.
public final class DTLSTransport: @unchecked Sendable, CustomStringConvertible {
    /// The default time a handshake may take from `start`: 10 s.
    public static let defaultHandshakeTimeout: UInt64 = 10_000_000_000
    /// The link MTU OpenSSL sizes its datagrams to (bytes of DTLS record, no IP/UDP headers).
    public static let mtu = 1200
    /// The first retransmission timeout (50 ms); it doubles up to `maxRetransmissionMicroseconds`.
    public static let initialRetransmissionMicroseconds: UInt32 = 50_000
    /// The longest retransmission timeout (3 s).
    public static let maxRetransmissionMicroseconds: UInt32 = 3_000_000

    /// Which end of the handshake this is.
    public let role: DTLSRole
    /// The fingerprint the peer's SDP announced; its certificate must match.
    public let remoteFingerprint: DTLSFingerprint
    /// The context (certificate, profiles) this transport was made from.
    public let context: DTLSContext
    /// How long the handshake may take from `start`, in the caller's nanoseconds.
    public let handshakeTimeout: UInt64

    /// Where the association is.
    public private(set) var state: DTLSState = .new
    /// The SRTP keys for this role, once `.connected`; nil before and after a failure.
    public private(set) var srtpKeys: DTLSSRTPKeys?
    /// What this transport has seen.
    public private(set) var counters = DTLSTransportCounters()

    private var ssl: OpaquePointer?
    private var readBIO: OpaquePointer?
    private var writeBIO: OpaquePointer?
    private let queue = DTLSDatagramQueue()
    /// The caller's time at which the handshake fails; set by `start`.
    private var deadline: UInt64?
    /// Server: a ClientHello was accepted (OpenSSL answered), so errors now fail the leg.
    private var peerAccepted = false

    /// A transport in `.new` with its SSL object ready. Throws `DTLSError.openSSL` if
    /// OpenSSL cannot make one (out of memory).
    public init(context: DTLSContext, role: DTLSRole, remoteFingerprint: DTLSFingerprint,
                handshakeTimeout: UInt64 = DTLSTransport.defaultHandshakeTimeout) throws(DTLSError) {
        self.context = context
        self.role = role
        self.remoteFingerprint = remoteFingerprint
        self.handshakeTimeout = handshakeTimeout
        try makeSSL()
    }

    deinit {
        freeSSL()
    }

    /// True while OpenSSL's SSL object is allocated (false once failed or closed).
    public var holdsSSL: Bool { ssl != nil }

    /// Datagrams the last call produced, to send in order.
    public var outgoingCount: Int { queue.count }

    /// The `index`th datagram the last call produced. Valid until the next call on this
    /// transport; copy it (or send it) before then.
    public func outgoingDatagram(_ index: Int) -> UnsafeRawBufferPointer { queue.datagram(index) }

    /// Starts the handshake clock at `now` (caller's monotonic nanoseconds); the client also
    /// writes its ClientHello. Calling it again does nothing.
    @discardableResult
    public func start(now: UInt64) -> DTLSState? {
        queue.removeAll()
        guard deadline == nil, case .new = state else { return nil }
        deadline = now &+ handshakeTimeout
        guard role == .client else { return nil }
        return finish(step(), from: .new)
    }

    /// Handles one datagram from the peer at `now`. Returns the new state when it changed.
    /// A datagram that is not a DTLS record, or that arrives after the end, is counted and
    /// dropped. An unstarted transport starts here.
    @discardableResult
    public func receive(_ datagram: UnsafeRawBufferPointer, now: UInt64) -> DTLSState? {
        queue.removeAll()
        counters.datagramsReceived &+= 1
        // RFC 7983: DTLS records start with 20...63; a record header is 13 bytes.
        guard let base = datagram.baseAddress, datagram.count >= 13, datagram.count <= 65_535,
              (20...63).contains(datagram[0]), let ssl, let readBIO, !state.isFinal else {
            counters.datagramsIgnored &+= 1
            return nil
        }
        if deadline == nil { deadline = now &+ handshakeTimeout }
        let before = state
        if let expired = expireIfDue(now: now) { return expired }
        let change: DTLSState?
        if case .connected = state {
            // Nothing authenticated written: OpenSSL has nothing to read (and would only
            // set up the record buffer `releaseIdleBuffers` gave back).
            if writeAuthenticatedRecords(datagram, to: readBIO) > 0 { readApplicationData(ssl) }
            change = nil
        } else {
            _ = BIO_write(readBIO, base, Int32(datagram.count))
            change = step()
        }
        // Whatever OpenSSL left unread was unusable; the SSL (and its BIOs) may be gone.
        if let readBIO = self.readBIO { _ = cssl_bio_reset(readBIO) }
        return finish(change, from: before)
    }

    /// When `handleTimeout` should next be called, in the caller's nanoseconds given that
    /// it is `now`: the retransmission timer or the handshake deadline, whichever is
    /// first; nil when nothing is pending (connected, closed, failed).
    public func nextTimeout(now: UInt64) -> UInt64? {
        guard let ssl, !state.isFinal, state != .connected else { return nil }
        var next = deadline
        var left = timeval()
        if cssl_dtls_get_timeout(ssl, &left) == 1 {
            let retransmit = now &+ UInt64(max(0, left.tv_sec)) * 1_000_000_000 + UInt64(max(0, left.tv_usec)) * 1000
            next = min(next ?? retransmit, retransmit)
        }
        return next
    }

    /// Runs the timers at `now`: fails the handshake past its deadline (freeing the SSL
    /// object), else resends the last flight if OpenSSL's timer ran out. Returns the new
    /// state when it changed.
    @discardableResult
    public func handleTimeout(now: UInt64) -> DTLSState? {
        queue.removeAll()
        guard let ssl, !state.isFinal else { return nil }
        if let expired = expireIfDue(now: now) { return expired }
        guard state == .handshaking else { return nil }
        OpenSSLErrorQueue.clear()
        let result = cssl_dtls_handle_timeout(ssl)
        if result > 0 {
            counters.retransmissions &+= 1
            counters.datagramsSent &+= UInt64(queue.count)
        } else if result < 0 {
            return fail(.protocolError("retransmission failed: \(OpenSSLErrorQueue.drain())"))
        }
        resetWriteBIO()
        return nil
    }

    /// Closes the association: a close_notify to send when connected, then the SSL object
    /// is freed and the state is `.closed`. Returns the new state when it changed.
    @discardableResult
    public func close() -> DTLSState? {
        queue.removeAll()
        guard !state.isFinal else { return nil }
        if let ssl, state == .connected {
            OpenSSLErrorQueue.clear()
            _ = SSL_alloc_buffers(ssl)  // released while idle; OpenSSL's DTLS write needs them set up
            _ = SSL_shutdown(ssl)
            counters.datagramsSent &+= UInt64(queue.count)
        }
        freeSSL()
        state = .closed
        srtpKeys = nil
        return state
    }

    /// "DTLSTransport(server, connected, AEAD_AES_128_GCM)": never keys.
    public var description: String {
        "DTLSTransport(\(role), \(state)\(srtpKeys.map { ", \($0.profile)" } ?? ""))"
    }

    // MARK: - Steps

    /// One `SSL_do_handshake`: nil while it continues, or the state it ended in.
    private func step() -> DTLSState? {
        guard let ssl else { return nil }
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return completeHandshake(ssl) }
        let error = SSL_get_error(ssl, result)
        if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
            if queue.count > 0 { peerAccepted = true }
            return nil
        }
        let detail = OpenSSLErrorQueue.drain()
        if role == .server && !peerAccepted {
            // Garbage before any ClientHello: start over rather than let it kill the leg,
            // and answer nothing (no alert to an unknown sender).
            counters.rejectedBeforeHandshake &+= 1
            queue.removeAll()
            freeSSL()
            do { try makeSSL() } catch { return fail(.protocolError("could not recreate the SSL object: \(error)")) }
            return nil
        }
        return fail(.protocolError(detail))
    }

    /// The checks after `SSL_do_handshake` returned 1, and the key export.
    private func completeHandshake(_ ssl: OpaquePointer) -> DTLSState {
        guard let peer = SSL_get1_peer_certificate(ssl) else { return fail(.noPeerCertificate) }
        let presented = DTLSCertificate.sha256(of: peer)
        X509_free(peer)
        guard let presented else { return fail(.noPeerCertificate) }
        guard presented == remoteFingerprint else {
            return fail(.fingerprintMismatch(expected: remoteFingerprint, actual: presented))
        }
        guard let selected = SSL_get_selected_srtp_profile(ssl) else { return fail(.noCommonSRTPProfile) }
        guard let profile = SRTPProfile(dtlsSRTPID: UInt(selected.pointee.id)) else {
            return fail(.unsupportedSRTPProfile(selected.pointee.name.map { String(cString: $0) } ?? "id \(selected.pointee.id)"))
        }
        let length = DTLSSRTPKeys.exportLength(for: profile)
        var exported = [UInt8](repeating: 0, count: length)
        let label = "EXTRACTOR-dtls_srtp"
        let status = SSL_export_keying_material(ssl, &exported, length, label, label.utf8.count, nil, 0, 0)
        defer { for index in exported.indices { exported[index] = 0 } }
        guard status == 1, let keys = DTLSSRTPKeys(profile: profile, exported: exported, role: role) else {
            return fail(.exporterFailed)
        }
        srtpKeys = keys
        state = .connected
        return state
    }

    /// After the handshake, only records of epoch 1 and later, at least 16 bytes long (an
    /// AEAD tag), reach OpenSSL: they are authenticated, while an epoch-0 record is plaintext anyone could forge (a stray
    /// handshake message would drag the association back into a handshake). Nothing a
    /// peer needs after the handshake travels in epoch 0: a client repeating its last
    /// flight is answered on its Finished, which is epoch 1. Record lengths are checked
    /// against the datagram; a record that runs past its end ends the walk. Dropped
    /// records are counted in `recordsDiscarded`. Returns the records written.
    private func writeAuthenticatedRecords(_ datagram: UnsafeRawBufferPointer, to bio: OpaquePointer) -> Int {
        let header = 13
        var offset = 0
        var written = 0
        while offset + header <= datagram.count {
            let epoch = Int(datagram[offset + 3]) << 8 | Int(datagram[offset + 4])
            let length = Int(datagram[offset + 11]) << 8 | Int(datagram[offset + 12])
            let end = offset + header + length
            guard end <= datagram.count else {
                counters.recordsDiscarded &+= 1
                return written
            }
            // Shorter than any AEAD tag (16) cannot be authentic; OpenSSL 3.0 mishandles
            // such records (seen: a 15-byte epoch-1 alert put the SSL back into init).
            if epoch == 0 || length < 16 {
                counters.recordsDiscarded &+= 1
            } else {
                _ = BIO_write(bio, datagram.baseAddress! + offset, Int32(header + length))
                written += 1
            }
            offset = end
        }
        return written
    }

    /// After the handshake: records that are not handshake (alerts, application data,
    /// a peer's retransmitted last flight, which OpenSSL answers by itself).
    ///
    /// A close_notify closes. Any other OpenSSL error after the handshake releases the SSL
    /// object but keeps the leg `.connected` with its keys: OpenSSL 3.0 puts a DTLS
    /// association into its error state on a forged record (seen: random epoch-1 records
    /// that fail decryption), and an off-path sender who knows the addresses must not be
    /// able to end a call that way. The leg's liveness is ICE consent's job (RFC 7675);
    /// all that is lost is a later close_notify.
    private func readApplicationData(_ ssl: OpaquePointer) {
        OpenSSLErrorQueue.clear()
        // Released while idle (`releaseIdleBuffers`): OpenSSL 3.0 sets the read buffer up
        // again by itself but not the DTLS write buffer an answer (a repeated flight) needs.
        _ = SSL_alloc_buffers(ssl)
        while true {
            let read = SSL_read(ssl, queue.scratch.baseAddress, Int32(queue.scratch.count))
            if read > 0 {
                counters.applicationBytesDiscarded &+= UInt64(read)
                continue
            }
            let error = SSL_get_error(ssl, read)
            if error == SSL_ERROR_ZERO_RETURN {
                freeSSL()
                state = .closed
                srtpKeys = nil
                return
            }
            if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) && SSL_in_init(ssl) == 0 { return }
            OpenSSLErrorQueue.clear()
            counters.associationErrorsAfterHandshake &+= 1
            queue.removeAll()
            freeSSL()
            return
        }
    }

    /// Fails past the deadline; nil when not due.
    private func expireIfDue(now: UInt64) -> DTLSState? {
        guard state == .new || state == .handshaking, let deadline, now >= deadline else { return nil }
        queue.removeAll()
        return fail(.handshakeTimedOut)
    }

    /// Records the end of a call: counts what goes out, empties the write BIO, and returns
    /// the state if it changed from `before`.
    private func finish(_ ended: DTLSState?, from before: DTLSState) -> DTLSState? {
        if ended == nil, state == .new, queue.count > 0 { state = .handshaking }
        counters.datagramsSent &+= UInt64(queue.count)
        resetWriteBIO()
        if state == .connected, let ssl { releaseIdleBuffers(ssl, justConnected: before != .connected) }
        return state == before ? nil : state
    }

    /// Once connected the association is idle (a record now and then: an alert, a peer's
    /// repeated last flight), so what the handshake needed goes back: OpenSSL's read and
    /// write record buffers (~34 KB; `SSL_free_buffers` keeps them while they hold data,
    /// and every later OpenSSL call that may write first sets them up with `SSL_alloc_buffers`) and, once, the datagram
    /// queue's storage down to `connectedQueueBytes` (the last flight it holds moves along). A media
    /// server holds one of these per leg (issue 20: ~50 KB less per subscriber leg).
    private func releaseIdleBuffers(_ ssl: OpaquePointer, justConnected: Bool) {
        _ = SSL_free_buffers(ssl)
        if justConnected { queue.shrinkKeepingDatagrams(to: Self.connectedQueueBytes) }
    }

    /// Bytes of datagram storage kept once connected: a post-handshake answer (the
    /// repeated ChangeCipherSpec + Finished, an alert) is a few hundred bytes; it grows by
    /// doubling if ever needed.
    static let connectedQueueBytes = 2048

    private func fail(_ failure: DTLSFailure) -> DTLSState {
        freeSSL()
        srtpKeys = nil
        state = .failed(failure)
        return state
    }

    private func resetWriteBIO() {
        if let writeBIO { _ = cssl_bio_reset(writeBIO) }
    }

    private func makeSSL() throws(DTLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.context) else { throw .openSSL(step: "SSL_new", detail: OpenSSLErrorQueue.drain()) }
        guard let readBIO = BIO_new(BIO_s_mem()), let writeBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .openSSL(step: "BIO_new", detail: OpenSSLErrorQueue.drain())
        }
        // An empty read BIO means "retry", never end of file.
        _ = cssl_bio_set_mem_eof_return(readBIO, -1)
        _ = cssl_bio_set_mem_eof_return(writeBIO, -1)
        queue.watch(writeBIO)
        SSL_set_bio(ssl, readBIO, writeBIO)
        _ = cssl_dtls_set_link_mtu(ssl, Self.mtu)
        DTLS_set_timer_cb(ssl, dtlsRetransmissionTimer)
        if role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
        peerAccepted = false
    }

    private func freeSSL() {
        if let ssl { SSL_free(ssl) }
        ssl = nil
        readBIO = nil
        writeBIO = nil
    }
}

/// OpenSSL's retransmission timer: 50 ms first (WebRTC's start, rather than RFC 6347's
/// 1 s: loss on the first flight would otherwise cost a second of setup), doubling to 3 s.
private let dtlsRetransmissionTimer: DTLS_timer_cb = { _, previous in
    previous == 0 ? DTLSTransport.initialRetransmissionMicroseconds
        : min(previous &* 2, DTLSTransport.maxRetransmissionMicroseconds)
}
