/// One publisher track's (or simulcast encoding's) end-to-end encryption of whole
/// encoded frames: `clear ‖ SFrame(rest)` with the clear bytes as metadata
/// (`SFrameFrameLayout`), under the key in the session's `SFrameKeySlot`.
///
/// KIDs: every key this encryptor takes gets a fresh random 64-bit KID chosen here, by the
/// client — the router is not trusted with nonce uniqueness. Each track and each
/// encoding has its own encryptor, hence its own KID and counter, so two senders of one
/// session share a (key, nonce) pair only if two of their 64-bit KIDs collide: with n
/// tracks the odds are about n²/2^65 (2.7·10⁻¹⁴ for 1,000). A new KID on every key also
/// covers a secret set back to an earlier value: the counter restarts at 0, but under a
/// KID never used before.
///
/// Threads: one (the track's encode thread); `@unchecked Sendable` to be handed there.
/// Cost per frame: one atomic load (`refresh`), a copy of the clear bytes and SFrame's
/// AES-GCM; nothing is allocated. A key change costs a key schedule (HKDF) and an EVP
/// context on this thread.
public final class SFrameFrameEncryptor: @unchecked Sendable {
    /// Where the session's key comes from.
    public let slot: SFrameKeySlot
    private var seenGeneration: UInt64 = 0
    private var sender: SFrameSender?

    /// An encryptor taking its keys from `slot`; it has none until `refresh` sees one.
    public init(slot: SFrameKeySlot) {
        self.slot = slot
    }

    /// The KID of the key in use (nil before a key arrived).
    public var keyID: UInt64? { sender?.keyID }

    /// Takes a newly installed key (with a new random KID); true when the key changed
    /// since the last call, so the caller forces a keyframe. Throws `cryptoFailure` (6001)
    /// when the key schedule fails; the encryptor then has no key. One atomic load when
    /// nothing changed.
    @inline(__always)
    public func refresh() throws(SFrameError) -> Bool {
        guard slot.generation != seenGeneration else { return false }
        try rekey()
        return true
    }

    private func rekey() throws(SFrameError) {
        let (key, generation) = slot.current()
        seenGeneration = generation
        sender = nil
        guard let key else { return }
        sender = try SFrameSender(baseKey: key, keyID: UInt64.random(in: 0...UInt64.max))
    }

    /// Bytes `encrypt` may add to a frame (the longest SFrame header and the tag).
    public static let maxOverhead = SFrameSender.maxOverhead

    /// Writes `frame` as `clear ‖ SFrame(rest)` into `output` (which must not overlap it;
    /// `frame.count + maxOverhead` bytes always suffice) and returns its length; nil when
    /// there is no key yet (the frame must not be sent). `clearBytes` is capped at the
    /// frame's length.
    @inline(__always)
    public func encrypt(_ frame: UnsafeRawBufferPointer, clearBytes: Int,
                        into output: UnsafeMutableRawBufferPointer) throws(SFrameError) -> Int? {
        guard let sender else { return nil }
        let clear = min(max(0, clearBytes), frame.count)
        guard output.count >= clear else { throw .bufferTooSmall(side: .sender, needed: clear, available: output.count) }
        let prefix = UnsafeRawBufferPointer(rebasing: frame[0..<clear])
        if clear > 0 { output.baseAddress!.copyMemory(from: frame.baseAddress!, byteCount: clear) }
        let sealed = try sender.encrypt(UnsafeRawBufferPointer(rebasing: frame[clear..<frame.count]), metadata: prefix,
                                        into: UnsafeMutableRawBufferPointer(rebasing: output[clear..<output.count]))
        return clear + sealed
    }
}
