import Synchronization

/// Where a session's current SFrame base key lives, shared by every publisher and
/// subscriber pipeline of an end-to-end encrypted session: the application's secret is
/// turned into a key off the media threads (PBKDF2 costs a fraction of a second) and
/// `install`ed here; each media thread notices the new `generation` on its next frame
/// and switches to the new key there, so frames keep flowing under the old key until the
/// new one is ready and the switch happens between two frames, never inside one.
///
/// Cost: `generation` is one atomic load (what the per-frame path pays); `current()` and
/// `install` take a short lock, only when the generation changed.
public final class SFrameKeySlot: Sendable {
    private let key = Mutex<SFrameBaseKey?>(nil)
    private let generationValue = Atomic<UInt64>(0)

    /// An empty slot (generation 0, no key): frames cannot be encrypted or decrypted yet.
    public init() {}

    /// Bumped by every `install`; a media thread that saw another value rekeys. One
    /// atomic load.
    public var generation: UInt64 { generationValue.load(ordering: .acquiring) }

    /// Whether a key has been installed. One lock.
    public var hasKey: Bool { key.withLock { $0 != nil } }

    /// Makes `baseKey` the session's key; media threads switch on their next frame.
    public func install(_ baseKey: SFrameBaseKey) {
        key.withLock { stored in
            stored = baseKey
            generationValue.add(1, ordering: .releasing)
        }
    }

    /// The key and the generation it belongs to (nil key before the first `install`).
    public func current() -> (key: SFrameBaseKey?, generation: UInt64) {
        key.withLock { ($0, generationValue.load(ordering: .relaxed)) }
    }
}
