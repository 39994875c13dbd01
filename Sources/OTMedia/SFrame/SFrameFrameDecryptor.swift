/// One subscriber track's end-to-end decryption of whole encoded frames laid out as
/// `clear ‖ SFrame(rest)` (`SFrameFrameLayout`), under the key in the session's
/// `SFrameKeySlot`, reporting mismatch episodes to the pipeline's
/// `SFrameDecryptionMonitor` (once when frames start failing, once when they verify again).
///
/// A frame that does not verify is never handed on: the caller drops it. Without a key
/// (no secret set yet) every frame fails as a mismatch.
///
/// Threads: one (the track's receive thread); `@unchecked Sendable` to be handed there.
/// Cost per frame: one atomic load, a copy of the clear bytes and SFrame's AES-GCM;
/// nothing is allocated once the publisher's KID is known.
public final class SFrameFrameDecryptor: @unchecked Sendable {
    /// What became of one frame.
    public enum Outcome: Sendable, Equatable {
        /// The frame verified; its plaintext (clear bytes included) is this long.
        case decrypted(length: Int)
        /// The frame did not verify or was replayed: drop it. `error.openTokCode` says
        /// whether it counts against the secret (6003), is internal (6002), or is a quiet
        /// replay drop (nil).
        case dropped(SFrameError)
    }

    /// Where the session's key comes from.
    public let slot: SFrameKeySlot
    private let monitor: SFrameDecryptionMonitor
    private let track: SFrameDecryptionMonitor.Track
    private var seenGeneration: UInt64 = 0
    private var receiver: SFrameReceiver?
    private var failing = false
    private var keyChanged = false

    /// A decryptor for `track`, reporting to `monitor`.
    public init(slot: SFrameKeySlot, monitor: SFrameDecryptionMonitor, track: SFrameDecryptionMonitor.Track) {
        self.slot = slot
        self.monitor = monitor
        self.track = track
    }

    /// Whether this track is in a mismatch episode (its last counted frame failed).
    public var isFailing: Bool { failing }

    /// True once after the key changed (the caller may ask for a keyframe then, even while
    /// frames do not verify). Free.
    public func takeKeyChanged() -> Bool {
        if slot.generation != seenGeneration { rekey() }
        defer { keyChanged = false }
        return keyChanged
    }

    /// Decrypts `frame` into `output` (same length suffices; must not overlap).
    @inline(__always)
    public func decrypt(_ frame: UnsafeRawBufferPointer, clearBytes: Int, into output: UnsafeMutableRawBufferPointer) -> Outcome {
        if slot.generation != seenGeneration { rekey() }
        guard let receiver else { return fail(.authenticationFailed) }
        let clear = min(max(0, clearBytes), frame.count)
        guard output.count >= clear else { return fail(.bufferTooSmall(side: .receiver, needed: clear, available: output.count)) }
        let prefix = UnsafeRawBufferPointer(rebasing: frame[0..<clear])
        if clear > 0 { output.baseAddress!.copyMemory(from: frame.baseAddress!, byteCount: clear) }
        do {
            let opened = try receiver.decrypt(UnsafeRawBufferPointer(rebasing: frame[clear..<frame.count]), metadata: prefix,
                                              into: UnsafeMutableRawBufferPointer(rebasing: output[clear..<output.count]))
            monitor.countDecrypted(track)
            if failing {
                failing = false
                monitor.trackRecovered(track)
            }
            return .decrypted(length: clear + opened.length)
        } catch {
            return fail(error)
        }
    }

    private func fail(_ error: SFrameError) -> Outcome {
        guard let code = error.openTokCode else { return .dropped(error) }  // a replay: quiet
        monitor.countFailed()
        if !failing {
            failing = true
            monitor.trackFailed(track, code: code, error)
        }
        return .dropped(error)
    }

    /// A new key: the receiver forgets every KID (frames under the old key stop verifying).
    private func rekey() {
        let (key, generation) = slot.current()
        seenGeneration = generation
        keyChanged = true
        guard let key else { receiver = nil; return }
        if let receiver { receiver.replaceBaseKey(key) } else { receiver = SFrameReceiver(baseKey: key) }
    }
}
