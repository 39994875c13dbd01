import CBareSRTP
import OTMedia

/// How many allocations libsrtp2 itself makes per protected packet, measured with the
/// bare C loop (CBareSRTP) and the GCM keys the pipelines use. Debian's libsrtp2 is
/// built on NSS, which allocates inside every srtp_protect / srtp_protect_rtcp; on the
/// OpenSSL primitives OTKit installs (as every otbench run does) this is 0. The pipeline
/// rows subtract this share to show what OTKit adds.
struct LibSRTPAllocations {
    /// Allocations per srtp_protect of a 1200-byte RTP packet.
    var perRTPPacket: Double
    /// Allocations per srtp_protect_rtcp of a 56-byte SR + SDES compound.
    var perRTCPPacket: Double
    /// Allocations of the first srtp_protect_rtcp of a fresh session that has sent no RTP
    /// (libsrtp clones its ssrc_any_outbound stream template then): what the first sender
    /// report of an OTKit publisher costs, whose RTCP has a session of its own.
    var firstRTCPPacket: Double

    /// Measures both with a fresh sender: one untimed packet of each kind (libsrtp
    /// clones its stream template then), then 256 counted packets of each.
    static func measure(keys: SRTPKeyMaterial) throws -> LibSRTPAllocations {
        let keyBytes = keys.keyAndSalt
        guard let session = keyBytes.withUnsafeBufferPointer({ bare_srtp_create(Int32(BARE_SRTP_AEAD_AES_128_GCM), $0.baseAddress, 1) }) else {
            throw ScenarioError("bare libsrtp2 refused the GCM policy")
        }
        defer { bare_srtp_destroy(session) }
        let rtp = [UInt8](repeating: 0x5A, count: 1200), rtcp = rtcpCompound()
        var work = [UInt8](repeating: 0, count: 1300)
        var sequence: UInt16 = 0
        let count: Int32 = 256
        func check(_ result: Int) throws {
            if result < 0 { throw ScenarioError("bare libsrtp2 failed with status \(-result)") }
        }
        var header = rtp
        header[0] = 0x80; header[1] = 96
        header[8] = 0x11; header[9] = 0x22; header[10] = 0x33; header[11] = 0x44
        var firstResult = 0
        let firstRTCP = try work.withUnsafeMutableBufferPointer { work in
            guard let fresh = keyBytes.withUnsafeBufferPointer({ bare_srtp_create(Int32(BARE_SRTP_AEAD_AES_128_GCM), $0.baseAddress, 1) }) else {
                throw ScenarioError("bare libsrtp2 refused the GCM policy")
            }
            defer { bare_srtp_destroy(fresh) }
            try check(bare_srtp_protect_loop(session, header, 1200, work.baseAddress, 1, &sequence))
            try check(bare_srtcp_protect_loop(session, rtcp, Int32(rtcp.count), work.baseAddress, 1))
            return AllocationCounter.delta { firstResult = bare_srtcp_protect_loop(fresh, rtcp, Int32(rtcp.count), work.baseAddress, 1) }
        }
        try check(firstResult)
        var rtpResult = 0, rtcpResult = 0
        let rtpAllocations = work.withUnsafeMutableBufferPointer { work in
            AllocationCounter.delta { rtpResult = bare_srtp_protect_loop(session, header, 1200, work.baseAddress, count, &sequence) }
        }
        let rtcpAllocations = work.withUnsafeMutableBufferPointer { work in
            AllocationCounter.delta { rtcpResult = bare_srtcp_protect_loop(session, rtcp, Int32(rtcp.count), work.baseAddress, count) }
        }
        try check(rtpResult); try check(rtcpResult)
        return LibSRTPAllocations(perRTPPacket: Double(rtpAllocations) / Double(count),
                                  perRTCPPacket: Double(rtcpAllocations) / Double(count), firstRTCPPacket: Double(firstRTCP))
    }

    /// An SR (RFC 3550 6.4.1, no report blocks, 28 bytes) followed by an SDES with one
    /// 14-byte CNAME chunk (RFC 3550 6.5, 28 bytes) for SSRC 0x11223344: 56 bytes.
    private static func rtcpCompound() -> [UInt8] {
        let ssrc: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        var bytes: [UInt8] = [0x80, 200, 0, 6] + ssrc + [UInt8](repeating: 1, count: 20)
        let cname = Array("otkit-bench-01".utf8)
        // chunk: SSRC(4) + type(1) + length(1) + text(14) + null terminator padded to 4 → 24 bytes
        let chunk = ssrc + [1, UInt8(cname.count)] + cname + [0, 0, 0, 0]
        bytes += [0x81, 202, 0, UInt8(chunk.count / 4)] + chunk
        return bytes
    }
}
