/// One publisher track's SFrame encryption (RFC 9605): its KID, the frame key and salt
/// derived for that KID from the session's base key, and a 64-bit counter that starts at
/// 0, goes up by one per frame and never wraps.
///
/// Per frame, `encrypt` writes header ‖ ciphertext ‖ tag into a buffer the caller owns:
/// `SFrameHeader` for (KID, CTR), then AES-128-GCM under nonce = salt XOR CTR with AAD =
/// header ‖ metadata. The counter is taken before the cipher runs, so a (key, nonce) pair
/// is never used twice even when a call fails; after CTR 2^64 − 1 the sender throws
/// `counterExhausted` (6001) for good.
///
/// Cost: `init` derives the key (HKDF, ~5 µs) and creates one EVP context; `encrypt`
/// allocates nothing and costs AES-GCM over the frame plus about 0.2 µs.
/// Threads: one frame at a time (the encoder's thread); `@unchecked Sendable` so it can be
/// handed to that thread.
public final class SFrameSender: @unchecked Sendable {
    /// The KID every frame of this sender carries.
    public let keyID: UInt64
    /// The cipher suite (AES_128_GCM_SHA256_128).
    public let suite: SFrameCipherSuite
    /// The counter the next frame gets.
    public private(set) var nextCounter: UInt64
    /// Set once the counter 2^64 − 1 has been used.
    public private(set) var isExhausted = false
    private let cipher: SFrameAESGCM

    /// A sender for `keyID` under `baseKey`, counting from 0.
    public convenience init(baseKey: SFrameBaseKey, keyID: UInt64, suite: SFrameCipherSuite = .aes128GCMSHA256) throws(SFrameError) {
        try self.init(baseKey: baseKey, keyID: keyID, suite: suite, firstCounter: 0)
    }

    /// A sender whose first frame gets `firstCounter` (tests of the end of the counter
    /// space, and resuming a context whose last counter was stored).
    public init(baseKey: SFrameBaseKey, keyID: UInt64, suite: SFrameCipherSuite = .aes128GCMSHA256, firstCounter: UInt64) throws(SFrameError) {
        let schedule: SFrameKeySchedule
        do { schedule = try SFrameKeySchedule(baseKey: baseKey.bytes, keyID: keyID, suite: suite) } catch {
            throw .cryptoFailure(side: .sender, "\(error)")
        }
        cipher = try SFrameAESGCM(schedule: schedule, suite: suite, side: .sender)
        self.keyID = keyID
        self.suite = suite
        nextCounter = firstCounter
    }

    /// Bytes `encrypt` adds to a frame at most: the longest header and the tag (33).
    public static let maxOverhead = SFrameHeader.maxLength + SFrameCipherSuite.aes128GCMSHA256.tagLength

    /// Bytes the next frame of `length` bytes takes once encrypted. Free.
    public func encryptedLength(of length: Int) -> Int {
        SFrameHeader(keyID: keyID, counter: nextCounter).encodedLength + length + suite.tagLength
    }

    /// Encrypts the encoded frame `frame` into `output` (which must not overlap it) and
    /// returns the SFrame ciphertext's length. `metadata` is authenticated, not sent
    /// (the receiver must pass the same bytes). A too-small `output` throws
    /// `bufferTooSmall` without using a counter; `output.count ≥ frame.count +
    /// maxOverhead` always suffices.
    @inline(__always)
    public func encrypt(_ frame: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                        into output: UnsafeMutableRawBufferPointer) throws(SFrameError) -> Int {
        guard !isExhausted else { throw .counterExhausted(keyID: keyID) }
        let header = SFrameHeader(keyID: keyID, counter: nextCounter)
        let headerLength = header.encodedLength
        let needed = headerLength + frame.count + suite.tagLength
        guard output.count >= needed, frame.count <= Int(Int32.max) - suite.tagLength, metadata.count <= Int(Int32.max) else {
            throw .bufferTooSmall(side: .sender, needed: needed, available: output.count)
        }
        // The counter is spent before the cipher runs: a failure never leaves it reusable.
        if nextCounter == .max { isExhausted = true } else { nextCounter += 1 }
        _ = try header.write(to: output)
        let base = output.baseAddress!
        try cipher.seal(counter: header.counter, header: UnsafeRawBufferPointer(start: base, count: headerLength), metadata: metadata,
                        plaintext: frame, output: base + headerLength)
        return needed
    }
}
