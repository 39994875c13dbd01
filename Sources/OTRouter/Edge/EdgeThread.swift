import Glibc

/// A pthread running one closure, for the edge's workers (the edge owns its threads so a
/// worker never shares a thread with anything else). Cost: one OS thread.
final class EdgeThread: Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let handle: pthread_t

    /// Starts the thread, or throws `EdgeError.thread` with `pthread_create`'s error.
    init(_ run: @escaping @Sendable () -> Void) throws(EdgeError) {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, body)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            throw .thread(created)
        }
        handle = thread
    }

    /// Waits for the thread to end. Call once.
    func join() { pthread_join(handle, nil) }
}
