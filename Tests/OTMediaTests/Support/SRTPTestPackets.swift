import OTMedia

/// Packets and keys for the SRTP tests, and array-in, array-out wrappers around the
/// in-place `SRTPSession` calls.
enum SRTPTestPackets {
    /// Key material whose bytes are `seed`, `seed + 1`, … (seed 0 is interop.md's KEY_HEX).
    static func keys(_ profile: SRTPProfile, seed: UInt8 = 0) -> SRTPKeyMaterial {
        try! SRTPKeyMaterial(profile: profile, keyAndSalt: (0..<profile.keyMaterialLength).map { seed &+ UInt8($0) })
    }

    /// A clear RTP packet (RFC 3550 section 5.1): V=2, PT 96, the given sequence number,
    /// timestamp 3000 × sequence, SSRC, `csrcCount` CSRCs, an RFC 8285 one-byte header
    /// extension of `extensionWords` words if given, then `payloadLength` bytes 0, 1, 2, ….
    static func rtp(sequence: UInt16, payloadLength: Int = 160, ssrc: UInt32 = 0x1122_3344,
                    csrcCount: Int = 0, extensionWords: Int? = nil) -> [UInt8] {
        let timestamp = UInt32(sequence) &* 3000
        var packet: [UInt8] = [0x80 | (extensionWords == nil ? 0 : 0x10) | UInt8(csrcCount), 96,
                               UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        packet += bigEndian(timestamp) + bigEndian(ssrc)
        for i in 0..<csrcCount { packet += bigEndian(0xC000_0000 | UInt32(i)) }
        if let words = extensionWords {
            packet += [0xBE, 0xDE, UInt8(words >> 8), UInt8(words & 0xFF)]
            packet += (0..<(4 * words)).map { UInt8(0x10 + $0) }
        }
        return packet + (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0) }
    }

    /// The header length of `rtp(…)` with these options.
    static func rtpHeaderLength(csrcCount: Int = 0, extensionWords: Int? = nil) -> Int {
        12 + 4 * csrcCount + (extensionWords.map { 4 + 4 * $0 } ?? 0)
    }

    /// A clear RTCP compound packet: a sender report (RFC 3550 section 6.4.1, no report
    /// blocks, 28 bytes) followed by an SDES with a CNAME (section 6.5).
    static func rtcp(ssrc: UInt32 = 0x1122_3344, packetCount: UInt32 = 7) -> [UInt8] {
        var sr: [UInt8] = [0x80, 200, 0, 6] + bigEndian(ssrc)
        sr += bigEndian(0xE8A0_0000) + bigEndian(0x1234_5678) + bigEndian(90_000) + bigEndian(packetCount) + bigEndian(packetCount * 100)
        let cname = Array("otkit@test".utf8)
        var sdes: [UInt8] = bigEndian(ssrc) + [1, UInt8(cname.count)] + cname
        while sdes.count % 4 != 0 || sdes.last != 0 { sdes.append(0) } // null-terminated item list, padded
        let header: [UInt8] = [0x81, 202] + bigEndian16(UInt16(sdes.count / 4))
        return sr + header + sdes
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    static func bigEndian16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
}

extension SRTPSession {
    /// Protects a copy of `packet` with `room` spare bytes after it; returns the SRTP packet.
    func protect(_ packet: [UInt8], room: Int = SRTPProfile.maxTrailer) throws(SRTPError) -> [UInt8] {
        try inPlace(packet, room: room) { (raw, length) throws(SRTPError) in try protect(raw, length: length) }
    }
    /// Unprotects a copy of `packet`; returns the RTP packet.
    func unprotect(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try inPlace(packet, room: 0) { (raw, length) throws(SRTPError) in try unprotect(raw, length: length) }
    }
    /// Protects a copy of the RTCP `packet`; returns the SRTCP packet.
    func protectRTCP(_ packet: [UInt8], room: Int = SRTPProfile.maxTrailer) throws(SRTPError) -> [UInt8] {
        try inPlace(packet, room: room) { (raw, length) throws(SRTPError) in try protectRTCP(raw, length: length) }
    }
    /// Unprotects a copy of the SRTCP `packet`; returns the RTCP packet.
    func unprotectRTCP(_ packet: [UInt8]) throws(SRTPError) -> [UInt8] {
        try inPlace(packet, room: 0) { (raw, length) throws(SRTPError) in try unprotectRTCP(raw, length: length) }
    }

    private func inPlace(_ packet: [UInt8], room: Int,
                         _ body: (UnsafeMutableRawBufferPointer, Int) throws(SRTPError) -> Int) throws(SRTPError) -> [UInt8] {
        var buffer = packet + [UInt8](repeating: 0, count: room)
        let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(SRTPError) -> Int in try body(raw, packet.count) } }
        let length = try result.get()
        return Array(buffer[0..<length])
    }
}
