import Testing
@testable import OTMedia

/// libsrtp2 (Debian's, on NSS) against an independent SRTP written from the RFCs on
/// OpenSSL (Support/SRTPReference.swift): byte-identical packets for every profile.
@Suite struct SRTPReferenceTests {
    typealias P = SRTPTestPackets
    typealias R = SRTPReference

    /// RFC 3711 appendix B.2: the AES-CM keystream of the reference implementation.
    @Test func referenceKeystreamMatchesRFC3711B2() {
        let stream = R.keystream(key: R.bytes("2B7E151628AED2A6ABF7158809CF4F3C"),
                                 iv: R.bytes("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000"), count: 48)
        #expect(stream == R.bytes("E03EAD0935C95E80E166B16DD92B4EB4 D23513162B02D0F72A43A2FE4A5F97AB 41E95B3BB0A2E8DD477901E4FCA894C0"))
    }

    /// RFC 3711 appendix B.3: the key derivation of the reference implementation.
    @Test func referenceKeyDerivationMatchesRFC3711B3() throws {
        let keys = try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80,
                                       masterKey: R.bytes("E1F97A0D3E018BE0D64FA32C06DE4139"),
                                       masterSalt: R.bytes("0EC675AD498AFEEBB6960B3AABE6"))
        let session = R.sessionKeys(keys, rtcp: false)
        #expect(session.cipherKey == R.bytes("C61E7A93744F39EE10734AFE3FF7A087"))
        #expect(session.salt == R.bytes("30CBBC08863D8C85D49DB34A9AE1"))
        #expect(session.authKey[0..<16] == R.bytes("CEBE321F6FF7716B6FD4AB49AF256A15")[...])
    }

    static let shapes: [(csrcs: Int, extensionWords: Int?, payload: Int)] = [(0, nil, 1188), (0, nil, 88), (2, 1, 33), (0, nil, 0)]

    @Test(arguments: SRTPProfile.allCases)
    func libsrtpRTPMatchesTheReference(_ profile: SRTPProfile) throws {
        for seed: UInt8 in [0, 0x5A] {
            let keys = P.keys(profile, seed: seed)
            let sender = try SRTPSession(keys: keys, direction: .sender)
            for (index, shape) in Self.shapes.enumerated() {
                let clear = P.rtp(sequence: UInt16(65_000 + index), payloadLength: shape.payload, ssrc: 0xCAFE_0000 | UInt32(seed),
                                  csrcCount: shape.csrcs, extensionWords: shape.extensionWords)
                let header = P.rtpHeaderLength(csrcCount: shape.csrcs, extensionWords: shape.extensionWords)
                #expect(try sender.protect(clear) == R.protectRTP(clear, headerLength: header, keys: keys))
            }
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func libsrtpRTCPMatchesTheReference(_ profile: SRTPProfile) throws {
        let keys = P.keys(profile, seed: 7)
        let sender = try SRTPSession(keys: keys, direction: .sender)
        for index: UInt32 in 1...3 {
            let clear = P.rtcp(ssrc: 0x0102_0304, packetCount: index)
            #expect(try sender.protectRTCP(clear) == R.protectRTCP(clear, index: index, keys: keys))
        }
    }

    /// And the other way: what the reference protects, OTKit's receiver accepts.
    @Test(arguments: SRTPProfile.allCases)
    func referencePacketsUnprotect(_ profile: SRTPProfile) throws {
        let keys = P.keys(profile, seed: 3)
        let receiver = try SRTPSession(keys: keys, direction: .receiver)
        let clear = P.rtp(sequence: 4242, payloadLength: 500)
        #expect(try receiver.unprotect(R.protectRTP(clear, headerLength: 12, keys: keys)) == clear)
        let rtcp = P.rtcp()
        #expect(try receiver.unprotectRTCP(R.protectRTCP(rtcp, index: 9, keys: keys)) == rtcp)
    }
}
