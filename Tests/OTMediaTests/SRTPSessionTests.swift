import Testing
@testable import OTMedia

/// SRTPSession through real libsrtp2: round trips, tampering, replay, wrong keys, room.
@Suite struct SRTPSessionTests {
    typealias P = SRTPTestPackets

    static func pair(_ profile: SRTPProfile, seed: UInt8 = 0) throws -> (sender: SRTPSession, receiver: SRTPSession) {
        let keys = P.keys(profile, seed: seed)
        return (try SRTPSession(keys: keys, direction: .sender), try SRTPSession(keys: keys, direction: .receiver))
    }

    /// Header shapes: plain, CSRCs, a header extension, both; large and tiny payloads.
    static let shapes: [(csrcs: Int, extensionWords: Int?, payload: Int)] = [
        (0, nil, 1188), (0, nil, 160), (2, nil, 40), (0, 2, 100), (3, 1, 0), (0, 0, 1),
    ]

    @Test(arguments: SRTPProfile.allCases)
    func rtpRoundTrip(_ profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        for (index, shape) in Self.shapes.enumerated() {
            let clear = P.rtp(sequence: UInt16(100 + index), payloadLength: shape.payload,
                              csrcCount: shape.csrcs, extensionWords: shape.extensionWords)
            let protected = try sender.protect(clear)
            #expect(protected.count == clear.count + profile.rtpTrailer)
            let header = P.rtpHeaderLength(csrcCount: shape.csrcs, extensionWords: shape.extensionWords)
            #expect(protected[0..<header] == clear[0..<header], "the header stays in the clear")
            if shape.payload >= 8 {
                #expect(protected[header..<clear.count] != clear[header...], "the payload is encrypted")
            }
            #expect(try receiver.unprotect(protected) == clear)
        }
        #expect(sender.counters.protected == UInt64(Self.shapes.count))
        #expect(receiver.counters.unprotected == UInt64(Self.shapes.count))
        #expect(receiver.counters.authFailures == 0 && receiver.counters.replays == 0 && receiver.counters.otherErrors == 0)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcpRoundTrip(_ profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        for count in 1...3 {
            let clear = P.rtcp(packetCount: UInt32(count))
            let protected = try sender.protectRTCP(clear)
            #expect(protected.count == clear.count + profile.rtcpTrailer)
            #expect(protected[0..<8] == clear[0..<8], "the first 8 bytes stay in the clear")
            #expect(protected[8..<clear.count] != clear[8...], "the rest is encrypted")
            // E flag set, SRTCP index counts up from 1 (RFC 3711 section 3.4).
            let word = profile == .aeadAES128GCM ? protected.count - 4 : clear.count
            #expect(protected[word] & 0x80 != 0)
            #expect(protected[word + 3] == UInt8(count))
            #expect(try receiver.unprotectRTCP(protected) == clear)
        }
        // The SRTCP replay check: the same packet twice.
        let again = try sender.protectRTCP(P.rtcp())
        _ = try receiver.unprotectRTCP(again)
        #expect(throws: SRTPError.replayed) { try receiver.unprotectRTCP(again) }
        #expect(receiver.counters.replays == 1)
    }

    /// Flipping any one byte (header, payload or tag) fails authentication, is counted, and
    /// never comes back as a packet.
    @Test(arguments: SRTPProfile.allCases)
    func tamperedByteFailsAuthentication(_ profile: SRTPProfile) throws {
        let keys = P.keys(profile)
        let sender = try SRTPSession(keys: keys, direction: .sender)
        let clear = P.rtp(sequence: 9, payloadLength: 60)
        let protected = try sender.protect(clear)
        var failures: UInt64 = 0
        for position in [1, 2, 5, 9, 12, 40, clear.count - 1, clear.count, protected.count - 1] {
            let receiver = try SRTPSession(keys: keys, direction: .receiver)
            var tampered = protected
            tampered[position] ^= 0x01
            #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotect(tampered) }
            #expect(receiver.counters.authFailures == 1)
            #expect(receiver.counters.unprotected == 0)
            failures += receiver.counters.authFailures
            // The genuine packet still passes afterwards: a forgery does not advance the window.
            #expect(try receiver.unprotect(protected) == clear)
        }
        #expect(failures == 9)
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedRTCPFailsAuthentication(_ profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        var protected = try sender.protectRTCP(P.rtcp())
        protected[20] ^= 0x80
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTCP(protected) }
        #expect(receiver.counters.authFailures == 1)
    }

    @Test(arguments: SRTPProfile.allCases)
    func replayedPacketIsRejected(_ profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        let first = try sender.protect(P.rtp(sequence: 1))
        let second = try sender.protect(P.rtp(sequence: 2))
        _ = try receiver.unprotect(first)
        _ = try receiver.unprotect(second)
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(first) }
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(second) }
        #expect(receiver.counters.replays == 2)
        #expect(receiver.counters.unprotected == 2)
    }

    /// Out-of-order packets inside the window are fine; one more than 1024 behind is too old.
    @Test(arguments: SRTPProfile.allCases)
    func packetOlderThanTheWindowIsRejected(_ profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        let newestSequence = 10 + SRTPSession.replayWindow + 5
        var packets: [Int: [UInt8]] = [:]
        for sequence in 10...newestSequence { packets[sequence] = try sender.protect(P.rtp(sequence: UInt16(sequence))) }
        _ = try receiver.unprotect(packets[newestSequence]!)
        #expect(throws: SRTPError.tooOld) { try receiver.unprotect(packets[10]!) }
        #expect(throws: SRTPError.tooOld) { try receiver.unprotect(packets[newestSequence - SRTPSession.replayWindow]!) }
        #expect(receiver.counters.replays == 2)
        // Packets within the window still get through, reordered.
        #expect(try receiver.unprotect(packets[newestSequence - SRTPSession.replayWindow + 1]!).count > 0)
        #expect(try receiver.unprotect(packets[newestSequence - 1]!).count > 0)
        #expect(receiver.counters.unprotected == 3)
    }

    /// allow_repeat_tx is off: a sender never reuses a packet index (keystream reuse).
    @Test(arguments: SRTPProfile.allCases)
    func senderRefusesToProtectTheSameIndexTwice(_ profile: SRTPProfile) throws {
        let (sender, _) = try Self.pair(profile)
        _ = try sender.protect(P.rtp(sequence: 5))
        #expect(throws: SRTPError.replayed) { try sender.protect(P.rtp(sequence: 5)) }
        #expect(sender.counters.protected == 1 && sender.counters.replays == 1)
    }

    @Test(arguments: SRTPProfile.allCases)
    func wrongKeyFailsAuthentication(_ profile: SRTPProfile) throws {
        let sender = try SRTPSession(keys: P.keys(profile, seed: 0), direction: .sender)
        let stranger = try SRTPSession(keys: P.keys(profile, seed: 1), direction: .receiver)
        #expect(throws: SRTPError.authenticationFailed) { try stranger.unprotect(sender.protect(P.rtp(sequence: 1))) }
        #expect(throws: SRTPError.authenticationFailed) { try stranger.unprotectRTCP(sender.protectRTCP(P.rtcp())) }
        #expect(stranger.counters.authFailures == 2)
    }

    /// Too little room for the trailer is an error before libsrtp writes anything; exactly
    /// enough works, and nothing is written past the trailer (guard bytes intact).
    @Test(arguments: SRTPProfile.allCases)
    func trailerRoomIsChecked(_ profile: SRTPProfile) throws {
        let (sender, receiver) = try Self.pair(profile)
        let clear = P.rtp(sequence: 1, payloadLength: 100)
        #expect(throws: SRTPError.bufferTooSmall(needed: clear.count + profile.rtpTrailer,
                                                 available: clear.count + profile.rtpTrailer - 1)) {
            try sender.protect(clear, room: profile.rtpTrailer - 1)
        }
        #expect(throws: SRTPError.self) { try sender.protectRTCP(P.rtcp(), room: profile.rtcpTrailer - 1) }
        #expect(sender.counters.otherErrors == 2)
        #expect(sender.counters.protected == 0)

        // Exact room inside a larger buffer whose tail is guard bytes.
        let guardBytes = 64
        var buffer = clear + [UInt8](repeating: 0, count: profile.rtpTrailer) + [UInt8](repeating: 0xA5, count: guardBytes)
        let exact = clear.count + profile.rtpTrailer
        let length = try buffer.withUnsafeMutableBytes { raw in
            try sender.protect(UnsafeMutableRawBufferPointer(rebasing: raw[0..<exact]), length: clear.count)
        }
        #expect(length == exact)
        #expect(buffer[exact...].allSatisfy { $0 == 0xA5 })
        #expect(try receiver.unprotect(Array(buffer[0..<length])) == clear)
    }

    @Test func wrongDirectionAndMalformedPacketsAreErrors() throws {
        let (sender, receiver) = try Self.pair(.aeadAES128GCM)
        let clear = P.rtp(sequence: 1)
        #expect(throws: SRTPError.wrongDirection) { try receiver.protect(clear) }
        #expect(throws: SRTPError.wrongDirection) { try sender.unprotect(clear) }
        #expect(throws: SRTPError.wrongDirection) { try receiver.protectRTCP(P.rtcp()) }
        #expect(throws: SRTPError.wrongDirection) { try sender.unprotectRTCP(P.rtcp()) }
        // Shorter than a header; not version 2; CSRCs or an extension past the end.
        #expect(throws: SRTPError.badParameter) { try sender.protect(Array(clear[0..<11])) }
        var v1 = clear; v1[0] = 0x40
        #expect(throws: SRTPError.badParameter) { try sender.protect(v1) }
        var csrcs = P.rtp(sequence: 1, payloadLength: 20); csrcs[0] |= 0x0F // 15 CSRCs = 60 bytes
        #expect(throws: SRTPError.badParameter) { try sender.protect(csrcs) }
        var longExtension = P.rtp(sequence: 1, payloadLength: 20, extensionWords: 1); longExtension[15] = 200
        #expect(throws: SRTPError.badParameter) { try sender.protect(longExtension) }
        #expect(throws: SRTPError.badParameter) { try sender.protectRTCP([0x80, 200, 0, 0]) }
        // A receiver given a packet with no room for the tag.
        #expect(throws: SRTPError.badParameter) { try receiver.unprotect(Array(clear[0..<20])) }
        #expect(throws: SRTPError.badParameter) { try receiver.unprotectRTCP(Array(P.rtcp()[0..<12])) }
        #expect(sender.counters.otherErrors == 7)
        #expect(receiver.counters.otherErrors == 4)
        // A length past the buffer.
        var small = [UInt8](repeating: 0, count: 16)
        small.withUnsafeMutableBytes { raw in
            #expect(throws: SRTPError.badParameter) { try sender.protect(raw, length: 17) }
            #expect(throws: SRTPError.badParameter) { try receiver.unprotect(raw, length: -1) }
        }
    }

    /// Counters are read from another thread while the session works.
    @Test func countersAreReadableFromAnotherThread() async throws {
        let (sender, receiver) = try Self.pair(.aeadAES128GCM)
        let counters = receiver.counters
        let reader = Task.detached { () -> UInt64 in
            var last: UInt64 = 0
            // Bounded: if counting broke, the test fails on the value instead of hanging.
            let deadline = ContinuousClock.now + .seconds(20)
            while last < 500 && ContinuousClock.now < deadline {
                let now = counters.unprotected
                precondition(now >= last, "a counter went backwards")
                last = now
                await Task.yield()
            }
            return last
        }
        for sequence in 0..<500 { _ = try receiver.unprotect(sender.protect(P.rtp(sequence: UInt16(sequence)))) }
        #expect(await reader.value == 500)
    }
}
