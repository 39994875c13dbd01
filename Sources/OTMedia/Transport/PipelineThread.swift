import CUDP
import Glibc
import Synchronization

/// A named OS thread that runs one pipeline direction: it waits in `ppoll` on its sockets
/// and an `eventfd`, and calls its `PipelineHandler` when a socket is readable, when
/// another thread calls `wake()`, and when the handler's next deadline passes.
///
/// Threading model (issue 3): one thread per pipeline direction. A publisher has a send
/// thread (frames in, packets out, RTCP feedback in on the same socket); a subscriber has
/// a receive thread (packets in, frames out, RTCP feedback out). Everything a direction
/// owns lives on its thread; other threads talk to it through the handler's own lock-free
/// or briefly-locked queues plus `wake()`. No lock is held across I/O, and the loop
/// allocates nothing per turn.
///
/// Time: deadlines are on the injected `MediaClock`. With a `ManualClock` the thread still
/// sleeps in real time towards the next deadline; call `wake()` after advancing it.
///
/// Membership: a handler whose sockets change while it runs (a router adding subscriber
/// legs) returns the new list from `updatedSockets()` after a `wake()`; the thread polls
/// it from the next turn on, with no stop and no restart.
///
/// Stopping: `stop()` asks the loop to end, wakes it and joins the thread; it is safe to
/// call twice and from `deinit`. Calling it from the thread itself only asks (no join).
public final class PipelineThread: Sendable {
    /// The name given to the OS thread (the first 15 bytes show in `top -H`).
    public let name: String
    /// The clock deadlines and `now` arguments come from.
    public let clock: any MediaClock
    private let core: Core
    private let thread: pthread_t
    private let joined = Atomic<Bool>(false)

    /// Starts a thread named `name` that polls `sockets` and drives `handler` (which moves
    /// to the new thread: the caller must not use it afterwards). Cost: one thread, one
    /// eventfd; nothing per turn.
    public init(
        name: String,
        clock: any MediaClock = SystemMediaClock(),
        sockets: [UDPSocket],
        handler: sending any PipelineHandler
    ) throws(TransportError) {
        let wakeDescriptor = CUDP_eventfd()
        guard wakeDescriptor >= 0 else { throw .system("eventfd", errno) }
        let core = Core(name: name, clock: clock, wakeDescriptor: wakeDescriptor, descriptors: sockets.map(\.fileDescriptor))
        let context = Unmanaged.passRetained(Context(core: core, handler: handler)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
            context.run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()  // the core closes the eventfd
            throw .system("pthread_create", created)
        }
        self.name = name
        self.clock = clock
        self.core = core
        self.thread = thread
    }

    deinit { stop() }

    /// Makes the thread call `handler.wokenUp` and re-read its deadline soon. Safe from any
    /// thread; many calls before the thread runs count as one. Cost: one `write` (8 bytes).
    public func wake() { core.wake() }

    /// Asks the loop to end, wakes it and waits for the thread to finish (unless called
    /// on the thread itself). The handler's `pipelineStopped` has run when this returns.
    public func stop() {
        core.stopRequested.store(true, ordering: .releasing)
        core.wake()
        if pthread_equal(pthread_self(), thread) != 0 { return }
        if !joined.exchange(true, ordering: .acquiringAndReleasing) {
            pthread_join(thread, nil)
        }
    }

    /// True while the loop runs (false before it starts and after it ends).
    public var isRunning: Bool { core.running.load(ordering: .acquiring) }
    /// How many times the loop has woken up; tests use it to see that it is alive.
    public var turns: Int { core.turns.load(ordering: .relaxed) }
    /// True when called on this pipeline's thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// What the thread and its owner share: descriptors, the stop flag, counters.
    private final class Core: Sendable {
        let name: String
        let clock: any MediaClock
        let wakeDescriptor: Int32
        let descriptors: [Int32]
        let stopRequested = Atomic<Bool>(false)
        let running = Atomic<Bool>(false)
        let turns = Atomic<Int>(0)

        init(name: String, clock: any MediaClock, wakeDescriptor: Int32, descriptors: [Int32]) {
            self.name = name
            self.clock = clock
            self.wakeDescriptor = wakeDescriptor
            self.descriptors = descriptors
        }

        func wake() {
            var one: UInt64 = 1
            _ = Glibc.write(wakeDescriptor, &one, 8)
        }

        // The eventfd lives as long as anyone can still call `wake()` on it: closing it in
        // `stop()` let a later wake (a second stop, deinit) write into whatever file
        // reused the number.
        deinit { Glibc.close(wakeDescriptor) }
    }

    /// The `pollfd` array of one socket list: the wake eventfd first, then the sockets in
    /// the order the handler's indices use. Allocated when the list is set, freed by
    /// `deallocate()`; nothing per turn.
    private struct PollTable {
        let entries: UnsafeMutablePointer<pollfd>
        let count: Int

        init(wakeDescriptor: Int32, descriptors: [Int32]) {
            count = descriptors.count + 1
            entries = UnsafeMutablePointer<pollfd>.allocate(capacity: count)
            entries[0] = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
            for (index, fd) in descriptors.enumerated() {
                entries[index + 1] = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            }
        }

        func deallocate() { entries.deallocate() }
    }

    /// The handler and the core, moved to the new thread as one retained pointer.
    private final class Context {
        let core: Core
        let handler: any PipelineHandler

        init(core: Core, handler: any PipelineHandler) {
            self.core = core
            self.handler = handler
        }

        func run() {
            _ = core.name.withCString { CUDP_set_thread_name($0) }
            var table = PollTable(wakeDescriptor: core.wakeDescriptor, descriptors: core.descriptors)
            defer { table.deallocate() }
            core.running.store(true, ordering: .releasing)
            handler.pipelineStarted(now: core.clock.nanoseconds())
            var deadline = handler.runTimers(now: core.clock.nanoseconds())
            while !core.stopRequested.load(ordering: .acquiring) {
                var timeout: Int64 = -1
                if let deadline {
                    let now = core.clock.nanoseconds()
                    timeout = deadline > now ? Int64(min(deadline - now, UInt64(Int64.max))) : 0
                }
                let entries = table.entries, count = table.count
                for index in 0..<count { entries[index].revents = 0 }
                let ready = CUDP_ppoll(entries, UInt(count), timeout)
                core.turns.add(1, ordering: .relaxed)
                if core.stopRequested.load(ordering: .acquiring) { break }
                if ready > 0 {
                    var changed = false
                    if entries[0].revents != 0 {
                        var value: UInt64 = 0
                        _ = Glibc.read(core.wakeDescriptor, &value, 8)
                        handler.wokenUp(now: core.clock.nanoseconds())
                        if let sockets = handler.updatedSockets() {
                            table.deallocate()
                            table = PollTable(wakeDescriptor: core.wakeDescriptor, descriptors: sockets.map(\.fileDescriptor))
                            changed = true
                        }
                    }
                    // After a change the indices of this turn's results name the old
                    // list; the next ppoll reports the same readiness under the new one.
                    if !changed {
                        for index in 1..<max(count, 1) where entries[index].revents != 0 {
                            handler.socketReadable(index - 1, now: core.clock.nanoseconds())
                        }
                    }
                }
                deadline = handler.runTimers(now: core.clock.nanoseconds())
            }
            handler.pipelineStopped(now: core.clock.nanoseconds())
            core.running.store(false, ordering: .releasing)
        }
    }
}
