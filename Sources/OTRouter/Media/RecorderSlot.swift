import OTRecording
import Synchronization

/// The recorder (an individual archive's `StreamRecorder` or a composed archive's `ComposerStreamInput`) a stream's forwarding thread feeds, handed from the
/// control plane to the thread without a lock on the thread's per-packet path: the
/// control plane stores the recorder under `current` and bumps `generation`; the thread
/// compares the generation it last saw (one atomic load per packet) and takes the lock
/// only when it changed. Cost: one lock per change, one atomic load per packet.
final class RecorderSlot: Sendable {
    private let current = Mutex<(any RecordingSink)?>(nil)
    private let generation = Atomic<UInt64>(0)

    /// Sets the recorder the thread feeds (nil: none). The caller keeps its own reference
    /// and calls `finish()` itself, so the thread never joins the writer.
    func set(_ recorder: (any RecordingSink)?) {
        current.withLock { $0 = recorder }
        generation.add(1, ordering: .releasing)
    }

    /// On the forwarding thread: refreshes `recorder` when the slot changed since `seen`.
    @inline(__always)
    func refresh(_ seen: inout UInt64, _ recorder: inout (any RecordingSink)?) {
        let latest = generation.load(ordering: .acquiring)
        guard latest != seen else { return }
        seen = latest
        recorder = current.withLock { $0 }
    }
}
