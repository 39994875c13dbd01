import Synchronization

/// A subscriber pipeline's view of end-to-end decryption across its tracks: counts
/// frames that verified and that were dropped, and calls the hook once when a mismatch
/// episode starts (the first track whose frames stop verifying) and once when it ends
/// (every track verifies again), so the subscriber reports `EncryptionSecretMismatch`
/// (6003) once per episode, not per frame.
///
/// Cost: counting is one relaxed atomic add; the hook runs on the receive thread, on
/// transitions only (one lock to read it).
public final class SFrameDecryptionMonitor: Sendable {
    /// The tracks a subscriber decrypts.
    public enum Track: UInt8, Sendable {
        /// The video track.
        case video = 1
        /// The audio track.
        case audio = 2
    }

    /// A transition worth telling the application about.
    public enum Event: Sendable, Equatable {
        /// Frames stopped verifying (`code` 6003 for another secret or no secret, 6002 for
        /// an internal failure); `error` is the first failure.
        case failed(code: Int, SFrameError)
        /// Every track's frames verify again.
        case recovered
    }

    private let failingTracks = Atomic<UInt8>(0)
    private let hook = Mutex<(@Sendable (Event) -> Void)?>(nil)
    private let videoDecrypted = Atomic<UInt64>(0)
    private let audioDecrypted = Atomic<UInt64>(0)
    private let failed = Atomic<UInt64>(0)

    /// A monitor with no hook and zero counts.
    public init() {}

    /// Frames that verified (both tracks).
    public var framesDecrypted: UInt64 { framesDecrypted(.video) + framesDecrypted(.audio) }
    /// Frames of `track` that verified.
    public func framesDecrypted(_ track: Track) -> UInt64 {
        track == .video ? videoDecrypted.load(ordering: .relaxed) : audioDecrypted.load(ordering: .relaxed)
    }
    /// Frames dropped because they did not verify (both tracks; replays not counted).
    public var framesFailed: UInt64 { failed.load(ordering: .relaxed) }
    /// Whether a mismatch episode is under way.
    public var isFailing: Bool { failingTracks.load(ordering: .relaxed) != 0 }

    /// Sets the transition hook (nil removes it); it must return quickly. One lock.
    public func onEvent(_ body: (@Sendable (Event) -> Void)?) { hook.withLock { $0 = body } }

    func countDecrypted(_ track: Track) {
        if track == .video { videoDecrypted.add(1, ordering: .relaxed) } else { audioDecrypted.add(1, ordering: .relaxed) }
    }
    func countFailed() { failed.add(1, ordering: .relaxed) }

    func trackFailed(_ track: Track, code: Int, _ error: SFrameError) {
        let before = failingTracks.bitwiseOr(track.rawValue, ordering: .relaxed).oldValue
        guard before == 0 else { return }
        hook.withLock { $0 }?(.failed(code: code, error))
    }

    func trackRecovered(_ track: Track) {
        let after = failingTracks.bitwiseAnd(~track.rawValue, ordering: .relaxed).newValue
        guard after == 0 else { return }
        hook.withLock { $0 }?(.recovered)
    }
}
