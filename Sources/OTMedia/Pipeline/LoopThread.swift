import CUDP
import Glibc
import Synchronization

/// A flag one thread sets and another polls: how a loop thread is told to end.
final class StopFlag: Sendable {
    private let stopped = Atomic<Bool>(false)
    /// True until `stop()`.
    var isRunning: Bool { !stopped.load(ordering: .acquiring) }
    /// Asks the loop to end.
    func stop() { stopped.store(true, ordering: .releasing) }
}

/// A named OS thread that runs one body until stopped: the capture loops (camera or
/// microphone → encoder → network) block on their source, so they get a thread of their
/// own rather than a poll loop.
///
/// Cost: one thread. `stop()` sets the flag and joins; the body must notice within its
/// own wait (sources are read with a timeout) for the join to be prompt.
final class LoopThread: Sendable {
    private let flag = StopFlag()
    private let joined = Atomic<Bool>(false)
    private let thread: pthread_t

    private final class Context: Sendable {
        let name: String
        let flag: StopFlag
        let body: @Sendable (StopFlag) -> Void
        init(name: String, flag: StopFlag, body: @escaping @Sendable (StopFlag) -> Void) {
            self.name = String(name.prefix(15)); self.flag = flag; self.body = body
        }
    }

    /// Starts `body` on a new thread named `name`; the body runs until it returns and
    /// should return soon after its `StopFlag` says stop.
    init(name: String, body: @escaping @Sendable (StopFlag) -> Void) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Context(name: name, flag: flag, body: body))
        let status = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            _ = context.name.withCString { CUDP_set_thread_name($0) }
            context.body(context.flag)
            return nil
        }, context.toOpaque())
        precondition(status == 0, "pthread_create failed: \(status)")
        self.thread = thread
    }

    /// Asks the loop to end and waits for it. Safe to call twice; never from the loop.
    func stop() {
        flag.stop()
        if joined.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            pthread_join(thread, nil)
        }
    }

    deinit { stop() }
}
