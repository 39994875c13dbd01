import Testing
@testable import OTMedia

/// SFrame encryption and decryption: RFC 9605 Appendix C.4 byte for byte, round trips,
/// and every way a frame can be wrong.
struct SFrameEncryptionTests {
    typealias V = RFC9605AES128GCMVector

    /// A sender at the vector's KID and CTR turns the vector's plaintext and metadata into
    /// exactly its ciphertext (header ‖ ciphertext ‖ tag), and a receiver turns it back.
    @Test func rfc9605EncryptionVector() throws {
        let base = try SFrameBaseKey(bytes: SFrameTest.bytes(V.baseKey))
        let sender = try SFrameSender(baseKey: base, keyID: V.kid, firstCounter: V.ctr)
        let metadata = SFrameTest.bytes(V.metadata)
        let sframe = try SFrameTest.encrypt(sender, SFrameTest.bytes(V.pt), metadata: metadata)
        #expect(SFrameTest.hex(sframe) == V.ct)
        // The AAD is the header ‖ metadata: the vector's AAD starts with the header sent.
        let headerLength = SFrameHeader(keyID: V.kid, counter: V.ctr).encodedLength
        #expect(SFrameTest.hex(Array(sframe.prefix(headerLength)) + metadata) == V.aad)
        #expect(sender.nextCounter == V.ctr + 1)

        let receiver = SFrameReceiver(baseKey: base)
        #expect(try SFrameTest.decrypt(receiver, SFrameTest.bytes(V.ct), metadata: metadata) == SFrameTest.bytes(V.pt))
        // The metadata is authenticated: without it the vector does not decrypt.
        let fresh = SFrameReceiver(baseKey: base)
        #expect(SFrameTest.error { () throws in try SFrameTest.decrypt(fresh, SFrameTest.bytes(V.ct)) } == .authenticationFailed)
    }

    /// Frames of many sizes, with and without metadata, come back as sent; the counter
    /// goes 0, 1, 2, … and the overhead is header + 16.
    @Test(arguments: [0, 1, 15, 16, 17, 100, 1200, 4096, 65_537])
    func roundTrip(size: Int) throws {
        let key = try SFrameTest.key()
        let sender = try SFrameSender(baseKey: key, keyID: 9)
        let receiver = SFrameReceiver(baseKey: key)
        for index in 0..<10 {
            let frame = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            let metadata: [UInt8] = index % 2 == 0 ? [] : [0x90, 0x80, UInt8(index)]
            let expectedLength = sender.encryptedLength(of: size)
            #expect(expectedLength == SFrameHeader(keyID: 9, counter: UInt64(index)).encodedLength + size + 16)
            let sframe = try SFrameTest.encrypt(sender, frame, metadata: metadata)
            #expect(sframe.count == expectedLength)
            if size >= 16 { #expect(Array(sframe.suffix(size + 16).prefix(16)) != Array(frame.prefix(16))) }
            let header = try sframe.withUnsafeBytes { try SFrameHeader.parse($0) }.header
            #expect(header == SFrameHeader(keyID: 9, counter: UInt64(index)))
            #expect(try SFrameTest.decrypt(receiver, sframe, metadata: metadata) == frame)
        }
    }

    /// Flipping any bit of the header, ciphertext or tag, or changing the metadata, is
    /// refused as 6003, and does not disturb the next genuine frame (the window only moves
    /// on authenticated frames).
    @Test func tamperingIsRefused() throws {
        let key = try SFrameTest.key()
        let sender = try SFrameSender(baseKey: key, keyID: 300, firstCounter: 70_000)
        let receiver = SFrameReceiver(baseKey: key)
        let frame = (0..<64).map { UInt8($0) }
        let metadata: [UInt8] = [1, 2, 3, 4]
        let sframe = try SFrameTest.encrypt(sender, frame, metadata: metadata)
        for index in sframe.indices {
            for bit in 0..<8 {
                var bad = sframe
                bad[index] ^= 1 << bit
                let error = SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, bad, metadata: metadata) }
                #expect(error?.openTokCode == 6003, "byte \(index) bit \(bit): \(String(describing: error))")
            }
        }
        for bad in [[], [1, 2, 3], [1, 2, 3, 5], [1, 2, 3, 4, 0]] as [[UInt8]] {
            #expect(SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, sframe, metadata: bad) } == .authenticationFailed)
        }
        #expect(receiver.knownKeyIDs.isEmpty)
        #expect(try SFrameTest.decrypt(receiver, sframe, metadata: metadata) == frame)
        #expect(receiver.knownKeyIDs == [300])
    }

    /// A receiver whose secret (or session) differs gets 6003 for every frame and never
    /// any plaintext; the same secret decrypts.
    @Test func wrongSecretIsAMismatch() throws {
        let sender = try SFrameSender(baseKey: try SFrameTest.key("the right secret"), keyID: 1)
        let wrong = SFrameReceiver(baseKey: try SFrameTest.key("the wrong secret"))
        let otherSession = SFrameReceiver(baseKey: try SFrameTest.key("the right secret", session: "another"))
        let right = SFrameReceiver(baseKey: try SFrameTest.key("the right secret"))
        for index in 0..<5 {
            let sframe = try SFrameTest.encrypt(sender, [UInt8](repeating: UInt8(index), count: 200))
            for receiver in [wrong, otherSession] {
                let error = SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, sframe) }
                #expect(error == .authenticationFailed)
                #expect(error?.openTokCode == 6003)
            }
            #expect(try SFrameTest.decrypt(right, sframe) == [UInt8](repeating: UInt8(index), count: 200))
        }
        #expect(wrong.knownKeyIDs.isEmpty)
    }

    /// A frame decrypts once: again is `replayed`; late frames inside the window decrypt
    /// once; frames 128 or more behind the newest are `tooOld`. None has an OpenTok code.
    @Test func replaysAreRefused() throws {
        let key = try SFrameTest.key()
        let sender = try SFrameSender(baseKey: key, keyID: 5)
        let receiver = SFrameReceiver(baseKey: key)
        let frames = try (0..<200).map { try SFrameTest.encrypt(sender, [UInt8($0 % 256)]) }
        _ = try SFrameTest.decrypt(receiver, frames[0])
        let replay = SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, frames[0]) }
        #expect(replay == .replayed(keyID: 5, counter: 0))
        #expect(replay?.openTokCode == nil)
        _ = try SFrameTest.decrypt(receiver, frames[150])
        #expect(try SFrameTest.decrypt(receiver, frames[23]) == [23])          // 127 behind: inside
        #expect(SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, frames[23]) } == .replayed(keyID: 5, counter: 23))
        #expect(SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, frames[22]) } == .tooOld(keyID: 5, counter: 22))
        #expect(SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, frames[150]) } == .replayed(keyID: 5, counter: 150))
        #expect(try SFrameTest.decrypt(receiver, frames[199]) == [199])
        #expect(try SFrameTest.decrypt(receiver, frames[151]) == [151])
    }

    /// The sender uses counter 2^64 − 1 once, then refuses (6001) rather than wrap; the
    /// refusal is permanent and writes nothing.
    @Test func counterWrapIsRefused() throws {
        let key = try SFrameTest.key()
        let sender = try SFrameSender(baseKey: key, keyID: 2, firstCounter: .max - 1)
        let receiver = SFrameReceiver(baseKey: key)
        let a = try SFrameTest.encrypt(sender, [1]), b = try SFrameTest.encrypt(sender, [2])
        #expect(sender.isExhausted)
        for _ in 0..<2 {
            let error = SFrameTest.error { () throws in try SFrameTest.encrypt(sender, [3]) }
            #expect(error == .counterExhausted(keyID: 2))
            #expect(error?.openTokCode == 6001)
        }
        #expect(try SFrameTest.decrypt(receiver, a) == [1])
        #expect(try SFrameTest.decrypt(receiver, b) == [2])
        #expect(try b.withUnsafeBytes { try SFrameHeader.parse($0) }.header.counter == .max)
    }

    /// Every length is checked: short output buffers on both sides (the sender's counter
    /// is not spent), a ciphertext shorter than the tag, an empty frame.
    @Test func lengthsAreChecked() throws {
        let key = try SFrameTest.key()
        let sender = try SFrameSender(baseKey: key, keyID: 1)
        let receiver = SFrameReceiver(baseKey: key)
        let frame = [UInt8](repeating: 7, count: 100)
        var small = [UInt8](repeating: 0, count: 100 + 1 + 16 - 1)
        let error = SFrameTest.error { () throws in
            try frame.withUnsafeBytes { f throws in try small.withUnsafeMutableBytes { o throws in try sender.encrypt(f, into: o) } }
        }
        #expect(error == .bufferTooSmall(side: .sender, needed: 117, available: 116))
        #expect(error?.openTokCode == 6001)
        #expect(sender.nextCounter == 0)

        let sframe = try SFrameTest.encrypt(sender, frame)
        #expect(sframe.count == 117)
        var out = [UInt8](repeating: 0, count: 99)
        let short = SFrameTest.error { () throws in
            try sframe.withUnsafeBytes { s throws in try out.withUnsafeMutableBytes { o throws in try receiver.decrypt(s, into: o) } }
        }
        #expect(short == .bufferTooSmall(side: .receiver, needed: 100, available: 99))
        #expect(short?.openTokCode == 6002)

        for cut in [0, 1, 2, 16] {
            let bad = Array(sframe.prefix(cut))
            let error = SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, bad) }
            switch cut {
            case 0: #expect(error == .truncatedHeader(length: 0, needed: 1))
            default: #expect(error == .truncatedCiphertext(length: cut - 1, tag: 16))
            }
            #expect(error?.openTokCode == 6003)
        }
        // The genuine frame still decrypts: no failure above touched the window.
        #expect(try SFrameTest.decrypt(receiver, sframe) == frame)
        // An empty frame is header + tag, and decrypts into an empty buffer.
        let empty = try SFrameTest.encrypt(sender, [])
        #expect(empty.count == 17)
        let result = try empty.withUnsafeBytes { s in try receiver.decrypt(s, into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) }
        #expect(result.length == 0)
    }

    /// Several senders (KIDs) under one base key: the receiver derives each KID's key, keeps
    /// at most `keyCapacity`, drops the least recently used, and derives it again later.
    @Test func keysByKID() throws {
        let key = try SFrameTest.key()
        let senders = try (10..<14).map { try SFrameSender(baseKey: key, keyID: UInt64($0)) }
        let receiver = SFrameReceiver(baseKey: key, keyCapacity: 3)
        for sender in senders {
            #expect(try SFrameTest.decrypt(receiver, SFrameTest.encrypt(sender, [UInt8(sender.keyID)])) == [UInt8(sender.keyID)])
        }
        #expect(receiver.knownKeyIDs == [13, 12, 11])
        #expect(try SFrameTest.decrypt(receiver, SFrameTest.encrypt(senders[0], [42])) == [42])
        #expect(receiver.knownKeyIDs == [10, 13, 12])
    }

    /// After the secret changes, frames under the old key are mismatches and frames under
    /// the new one decrypt, from counter 0 again.
    @Test func secretChange() throws {
        let old = try SFrameTest.key("old secret"), new = try SFrameTest.key("new secret")
        let oldSender = try SFrameSender(baseKey: old, keyID: 1)
        let receiver = SFrameReceiver(baseKey: old)
        _ = try SFrameTest.decrypt(receiver, SFrameTest.encrypt(oldSender, [1]))
        let late = try SFrameTest.encrypt(oldSender, [2])
        receiver.replaceBaseKey(new)
        #expect(SFrameTest.error { () throws in try SFrameTest.decrypt(receiver, late) } == .authenticationFailed)
        let newSender = try SFrameSender(baseKey: new, keyID: 1)
        #expect(try SFrameTest.decrypt(receiver, SFrameTest.encrypt(newSender, [3])) == [3])
    }

    /// Each error maps to the OpenTok code its side reports.
    @Test func openTokCodes() {
        #expect(SFrameError.authenticationFailed.openTokCode == 6003)
        #expect(SFrameError.nonMinimalHeader.openTokCode == 6003)
        #expect(SFrameError.cryptoFailure(side: .sender, "x").openTokCode == 6001)
        #expect(SFrameError.cryptoFailure(side: .receiver, "x").openTokCode == 6002)
        #expect(SFrameError.tooOld(keyID: 1, counter: 1).openTokCode == nil)
        #expect(SFrameError.invalidSecret(length: 3).openTokCode == 6004)
    }
}
