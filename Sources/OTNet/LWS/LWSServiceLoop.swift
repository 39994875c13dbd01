import CLibWebSockets
import Foundation
import Synchronization

/// One libwebsockets context and the thread that services it. The context is created by
/// the owner; this runs `lws_service` until the owner says stop (or `requestExit` is
/// called), then destroys the context on the same thread — lws runs the CLOSED and
/// WSI_DESTROY callbacks inside `lws_context_destroy`, so they too happen on this thread.
///
/// From any other thread the only lws call made is `lws_cancel_service` (in `wake`), under
/// a lock that also guards "the context still exists", so no wake can touch a destroyed
/// context. Cost: one thread; a wake is one pipe write inside lws.
final class LWSServiceLoop: @unchecked Sendable {
    let context: OpaquePointer
    private let state = NSCondition()
    private var alive = true          // guarded by state
    private var finished = false      // guarded by state
    private let exitRequested = Atomic<Bool>(false)
    private var thread: OSThread?
    init(context: OpaquePointer) {
        self.context = context
    }

    /// Starts the service thread. `shouldStop` is asked after every service pass;
    /// `afterDestroy` runs on the thread once the context is gone.
    func start(name: String, shouldStop: @escaping @Sendable () -> Bool, afterDestroy: @escaping @Sendable () -> Void) throws(WebError) {
        thread = try OSThread(name: name) { [self] in
            while !exitRequested.load(ordering: .acquiring) && !shouldStop() {
                if lws_service(context, 0) < 0 { break }
            }
            state.lock()
            alive = false
            state.unlock()
            lws_context_destroy(context)
            afterDestroy()
            state.lock()
            finished = true
            state.broadcast()
            state.unlock()
        }
    }

    /// Interrupts the service thread's poll: it then receives `EVENT_WAIT_CANCELLED` and
    /// re-checks whether to stop. Safe from any thread, also after the context is gone.
    func wake() {
        state.lock()
        if alive { lws_cancel_service(context) }
        state.unlock()
    }

    /// Makes the loop end after the current pass, whatever the owner says.
    func requestExit() {
        exitRequested.store(true, ordering: .releasing)
        wake()
    }

    /// True on the service thread.
    var isServiceThread: Bool { thread?.isCurrent ?? false }

    /// Waits until the thread has destroyed the context, up to `seconds`; true if it has.
    func waitFinished(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        state.lock()
        defer { state.unlock() }
        while !finished {
            if !state.wait(until: deadline) { return finished }
        }
        return true
    }

    /// Waits for the thread to end (detaches when called on it). Idempotent.
    func join() { thread?.join() }
}
