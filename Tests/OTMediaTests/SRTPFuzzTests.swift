import Testing
@testable import OTMedia

/// Garbage into the receiving side never traps, is never accepted, and is counted.
@Suite struct SRTPFuzzTests {
    @Test(arguments: SRTPProfile.allCases)
    func randomBuffersNeverTrap(_ profile: SRTPProfile) throws {
        let receiver = try SRTPSession(keys: SRTPTestPackets.keys(profile), direction: .receiver)
        var random = SplitMix64(seed: 0x5EED_0000 | UInt64(profile.keyMaterialLength))
        var buffer = [UInt8](repeating: 0, count: 1500)
        let rounds = 10_000
        var accepted = 0
        for round in 0..<rounds {
            let length = Int.random(in: 0...buffer.count, using: &random)
            for i in 0..<length { buffer[i] = UInt8.random(in: 0...255, using: &random) }
            // Half the time look like RTP version 2, so libsrtp itself gets to see garbage.
            if round % 2 == 0, length > 0 { buffer[0] = 0x80 | (buffer[0] & 0x3F) }
            buffer.withUnsafeMutableBytes { raw in
                if (try? receiver.unprotect(raw, length: length)) != nil { accepted += 1 }
                if (try? receiver.unprotectRTCP(raw, length: length)) != nil { accepted += 1 }
            }
        }
        #expect(accepted == 0)
        let c = receiver.counters
        #expect(c.unprotected == 0)
        #expect(c.authFailures + c.replays + c.otherErrors == UInt64(2 * rounds))
        #expect(c.authFailures > 0, "some garbage must reach libsrtp's tag check")
    }

    /// Every truncation of a genuine packet is rejected without trapping.
    @Test(arguments: SRTPProfile.allCases)
    func truncationsAreRejected(_ profile: SRTPProfile) throws {
        let keys = SRTPTestPackets.keys(profile)
        let sender = try SRTPSession(keys: keys, direction: .sender)
        let receiver = try SRTPSession(keys: keys, direction: .receiver)
        let rtp = try sender.protect(SRTPTestPackets.rtp(sequence: 1, payloadLength: 50, csrcCount: 1, extensionWords: 1))
        let rtcp = try sender.protectRTCP(SRTPTestPackets.rtcp())
        for length in 0..<rtp.count { #expect(throws: SRTPError.self) { try receiver.unprotect(Array(rtp[0..<length])) } }
        for length in 0..<rtcp.count { #expect(throws: SRTPError.self) { try receiver.unprotectRTCP(Array(rtcp[0..<length])) } }
        #expect(receiver.counters.unprotected == 0)
        #expect(try receiver.unprotect(rtp).count == rtp.count - profile.rtpTrailer)
    }
}
