import Synchronization

/// What the control plane changes while a composer runs, read by its thread when
/// `ArchiveComposer`'s generation moves: the streams in publish order, the layout, and
/// whether (and at what instant) to stop. Cost: a plain value.
struct ComposerControl {
    var streams: [ComposerStreamInput] = []
    var layout: CompositionLayout
    var stopping = false
    /// When stopping: the instant (`MonotonicClock`) the recording ends; nil: now.
    var stopAt: UInt64?
}

/// The control state an `ArchiveComposer` and its thread share: the control value under a
/// lock and a generation counter the thread polls (one atomic load per tick).
/// Cost: one lock, one atomic.
final class ComposerShared: Sendable {
    let control: Mutex<ComposerControl>
    let generation = Atomic<Int>(0)

    init(layout: CompositionLayout) { control = Mutex(ComposerControl(layout: layout)) }

    /// Changes the control value and bumps the generation.
    func change<T>(_ body: (inout ComposerControl) -> T) -> T {
        let result = control.withLock { body(&$0) }
        generation.add(1, ordering: .releasing)
        return result
    }
}
