import Synchronization
import Testing
@testable import OTMedia

/// The media integration of SFrame: the frame layout (VP8 payload header clear and
/// authenticated, Opus fully sealed), KIDs drawn per encryptor and per key, key changes
/// through the slot, and mismatch episodes reported once.
struct SFrameFrameCryptoTests {
    /// A VP8-looking frame: keyframe (P bit 0) or delta (P bit 1), then a counting body.
    static func vp8(keyframe: Bool, length: Int = 600) -> [UInt8] {
        var frame = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        frame[0] = keyframe ? 0x10 : 0x11
        return frame
    }

    static func seal(_ encryptor: SFrameFrameEncryptor, _ frame: [UInt8], clear: Int) throws -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: frame.count + SFrameFrameEncryptor.maxOverhead)
        let length = try frame.withUnsafeBytes { f throws in
            try out.withUnsafeMutableBytes { o throws in try encryptor.encrypt(f, clearBytes: clear, into: o) }
        }
        return length.map { Array(out.prefix($0)) }
    }

    static func open(_ decryptor: SFrameFrameDecryptor, _ frame: [UInt8], clear: Int) -> (SFrameFrameDecryptor.Outcome, [UInt8]) {
        var out = [UInt8](repeating: 0, count: frame.count)
        let outcome = frame.withUnsafeBytes { f in out.withUnsafeMutableBytes { o in decryptor.decrypt(f, clearBytes: clear, into: o) } }
        if case .decrypted(let length) = outcome { return (outcome, Array(out.prefix(length))) }
        return (outcome, [])
    }

    final class Events: Sendable {
        let list = Mutex<[SFrameDecryptionMonitor.Event]>([])
        var all: [SFrameDecryptionMonitor.Event] { list.withLock { $0 } }
    }

    @Test func vp8LayoutKeepsThePayloadHeaderClearAndAuthenticated() throws {
        let slot = SFrameKeySlot()
        slot.install(try SFrameTest.key())
        let encryptor = SFrameFrameEncryptor(slot: slot)
        #expect(try encryptor.refresh())
        let monitor = SFrameDecryptionMonitor()
        let decryptor = SFrameFrameDecryptor(slot: slot, monitor: monitor, track: .video)
        for keyframe in [true, false] {
            let frame = Self.vp8(keyframe: keyframe)
            let clear = frame.withUnsafeBytes { SFrameFrameLayout.vp8ClearBytes($0) }
            #expect(clear == (keyframe ? 10 : 3))
            let sealed = try #require(try Self.seal(encryptor, frame, clear: clear))
            #expect(Array(sealed.prefix(clear)) == Array(frame.prefix(clear)), "the payload header is clear")
            #expect(sealed.withUnsafeBytes { SFrameFrameLayout.vp8ClearBytes($0) } == clear, "the receiver finds the same prefix")
            let kid = try #require(encryptor.keyID)
            #expect(sealed.count == frame.count + SFrameHeader(keyID: kid, counter: keyframe ? 0 : 2).encodedLength + 16,
                    "header (8-byte KID but for leading zeros) and tag")
            #expect(!sealed.dropFirst(clear).starts(with: frame.dropFirst(clear).prefix(16)), "the rest is not")
            let (outcome, opened) = Self.open(decryptor, sealed, clear: clear)
            #expect(outcome == .decrypted(length: frame.count) && opened == frame)

            // A changed clear byte (the keyframe's width, the tag's show-frame bit) fails the tag.
            var tampered = try #require(try Self.seal(encryptor, frame, clear: clear))
            tampered[clear - 1] ^= 0x01
            #expect(Self.open(decryptor, tampered, clear: clear).0 == .dropped(.authenticationFailed))
        }
    }

    @Test func opusIsSealedWhole() throws {
        let slot = SFrameKeySlot()
        slot.install(try SFrameTest.key())
        let encryptor = SFrameFrameEncryptor(slot: slot)
        _ = try encryptor.refresh()
        let packet: [UInt8] = [0x78] + (1...79).map { UInt8($0) }
        let sealed = try #require(try Self.seal(encryptor, packet, clear: SFrameFrameLayout.opusClearBytes))
        #expect(sealed.first != 0x78 || sealed[1] != 1, "not even the TOC byte is clear")
        let decryptor = SFrameFrameDecryptor(slot: slot, monitor: SFrameDecryptionMonitor(), track: .audio)
        #expect(Self.open(decryptor, sealed, clear: 0).1 == packet)
    }

    @Test func noKeyNoFrameAndEachKeyGetsAFreshKID() throws {
        let slot = SFrameKeySlot()
        let encryptor = SFrameFrameEncryptor(slot: slot)
        #expect(try encryptor.refresh() == false && encryptor.keyID == nil)
        #expect(try Self.seal(encryptor, Self.vp8(keyframe: true), clear: 10) == nil, "nothing is sent without a key")
        let key = try SFrameTest.key()
        slot.install(key)
        #expect(try encryptor.refresh() && !(try encryptor.refresh()))
        let first = try #require(encryptor.keyID)
        slot.install(key)  // the same secret again: a new KID, so counter 0 is never reused under a KID
        #expect(try encryptor.refresh())
        #expect(try #require(encryptor.keyID) != first)
        let other = SFrameFrameEncryptor(slot: slot)
        _ = try other.refresh()
        #expect(other.keyID != encryptor.keyID, "each track draws its own KID")
    }

    @Test func mismatchIsReportedOncePerEpisodeAcrossTracks() throws {
        let publisherSlot = SFrameKeySlot(), subscriberSlot = SFrameKeySlot()
        publisherSlot.install(try SFrameTest.key("the publisher's secret"))
        let video = SFrameFrameEncryptor(slot: publisherSlot), audio = SFrameFrameEncryptor(slot: publisherSlot)
        _ = try video.refresh()
        _ = try audio.refresh()
        let monitor = SFrameDecryptionMonitor()
        let events = Events()
        monitor.onEvent { event in events.list.withLock { $0.append(event) } }
        let videoIn = SFrameFrameDecryptor(slot: subscriberSlot, monitor: monitor, track: .video)
        let audioIn = SFrameFrameDecryptor(slot: subscriberSlot, monitor: monitor, track: .audio)

        func exchange(_ count: Int) throws {
            for index in 0..<count {
                let frame = Self.vp8(keyframe: index == 0), clear = index == 0 ? 10 : 3
                _ = Self.open(videoIn, try #require(try Self.seal(video, frame, clear: clear)), clear: clear)
                _ = Self.open(audioIn, try #require(try Self.seal(audio, [0x78, 1, 2, 3, 4, 5], clear: 0)), clear: 0)
            }
        }
        try exchange(20)  // no secret at the subscriber: a mismatch
        #expect(events.all == [.failed(code: 6003, .authenticationFailed)], "once, not per frame or per track")
        #expect(monitor.framesFailed == 40 && monitor.framesDecrypted == 0)
        subscriberSlot.install(try SFrameTest.key("another secret"))
        try exchange(10)
        #expect(events.all.count == 1, "still the same episode")
        #expect(videoIn.takeKeyChanged() && !videoIn.takeKeyChanged(), "a key change lets one keyframe request through")
        subscriberSlot.install(try SFrameTest.key("the publisher's secret"))
        try exchange(10)
        #expect(events.all == [.failed(code: 6003, .authenticationFailed), .recovered])
        #expect(monitor.framesDecrypted(.video) == 10 && monitor.framesDecrypted(.audio) == 10 && !monitor.isFailing)
        publisherSlot.install(try SFrameTest.key("a newer secret"))
        _ = try video.refresh()
        _ = try audio.refresh()
        try exchange(5)
        #expect(events.all.count == 3 && events.all.last == .failed(code: 6003, .authenticationFailed), "a new episode")
    }
}
