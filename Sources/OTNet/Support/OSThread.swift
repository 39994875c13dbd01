import CLibWebSockets
import Glibc

/// A named pthread running one closure; `join()` waits for it once (later calls return at
/// once) and, called on the thread itself, detaches instead of deadlocking. Cost: one OS
/// thread with the default stack.
final class OSThread: Sendable {
    private let handle: pthread_t
    private let joined = Locked(false)

    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) { self.name = name; self.run = run }
    }

    /// Starts the thread. `name` shows in `top -H` (first 15 bytes).
    init(name: String, _ run: @escaping @Sendable () -> Void) throws(WebError) {
        let body = Unmanaged.passRetained(Body(name: name, run: run)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            clws_name_current_thread(String(body.name.utf8.prefix(15))!)
            body.run()
            return nil
        }, body)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            throw .system("pthread_create", created)
        }
        handle = thread
    }

    /// True when called on this thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), handle) != 0 }

    /// Waits for the thread to end (or detaches it when called on the thread itself).
    /// Idempotent.
    func join() {
        let first = joined.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        if isCurrent {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }
}
