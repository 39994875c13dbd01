import Foundation
import Synchronization
import Testing
@testable import OTMedia

/// What a test handler saw, readable from the test's thread.
final class PipelineEvents: Sendable {
    let started = Atomic<Int>(0)
    let stopped = Atomic<Int>(0)
    let wakeUps = Atomic<Int>(0)
    let readable = Atomic<Int>(0)
    let datagrams = Atomic<Int>(0)
    let timerFires = Atomic<Int>(0)
    /// Calls to runTimers, fired or not: waiting for this to move proves a check happened.
    let timerChecks = Atomic<Int>(0)
    let lastTimerNow = Atomic<UInt64>(0)
    let onOwnThread = Atomic<Bool>(true)
    let threadName = Mutex<String>("")
}

/// Receives from socket 0 and fires a timer every `period` nanoseconds of the thread's clock.
final class RecordingHandler: PipelineHandler {
    let events: PipelineEvents
    let socket: UDPSocket
    let period: UInt64
    let pool = PacketBufferPool(initialCount: 8)
    let batch = UDPMessageBatch(capacity: 8)
    var next: UInt64 = 0
    var slots: [PacketBuffer] = []

    init(events: PipelineEvents, socket: UDPSocket, period: UInt64) {
        self.events = events
        self.socket = socket
        self.period = period
    }

    func pipelineStarted(now: UInt64) {
        next = now + period
        slots = (0..<8).map { _ in pool.take()! }
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        events.threadName.withLock { $0 = name.trimmingCharacters(in: .whitespacesAndNewlines) }
        // Published last, with release: a reader that sees it also sees the name.
        events.started.add(1, ordering: .releasing)
    }

    func socketReadable(_ index: Int, now: UInt64) {
        events.readable.add(1, ordering: .relaxed)
        while let count = try? socket.receive(into: slots, batch: batch), count.count > 0 {
            events.datagrams.add(count.count, ordering: .relaxed)
        }
    }

    func wokenUp(now: UInt64) { events.wakeUps.add(1, ordering: .relaxed) }

    func runTimers(now: UInt64) -> UInt64? {
        if now >= next {
            events.lastTimerNow.store(now, ordering: .relaxed)
            events.timerFires.add(1, ordering: .releasing)  // after lastTimerNow, released
            next = now + period
        }
        events.timerChecks.add(1, ordering: .releasing)
        return next
    }

    func pipelineStopped(now: UInt64) { events.stopped.add(1, ordering: .relaxed) }
}

@Suite struct TransportPipelineThreadTests {
    typealias Support = TransportTestSupport

    @Test("The thread is named, reads its socket, answers wake() and stops cleanly")
    func socketsWakeUpsAndStop() throws {
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        let sender = try UDPSocket(bindingTo: .ipv4Loopback())
        let events = PipelineEvents()
        let handler = RecordingHandler(events: events, socket: socket, period: 3_600_000_000_000)
        let thread = try PipelineThread(name: "otkit-test-rx", sockets: [socket], handler: handler)
        #expect(Support.waitUntil { events.started.load(ordering: .acquiring) == 1 })
        #expect(events.threadName.withLock { $0 } == "otkit-test-rx")
        #expect(!thread.isCurrent)

        try Support.send(0..<20, from: sender, to: socket.localAddress, pool: PacketBufferPool(initialCount: 64))
        #expect(Support.waitUntil { events.datagrams.load(ordering: .relaxed) == 20 })
        #expect(events.readable.load(ordering: .relaxed) >= 1)

        thread.wake()
        #expect(Support.waitUntil { events.wakeUps.load(ordering: .relaxed) >= 1 })

        thread.stop()
        #expect(!thread.isRunning)
        #expect(events.stopped.load(ordering: .relaxed) == 1)
        thread.stop()
        #expect(events.stopped.load(ordering: .relaxed) == 1)
        #expect(events.timerFires.load(ordering: .acquiring) == 0)
    }

    @Test("Timers follow the injected clock: nothing fires until a ManualClock passes the deadline")
    func timersFollowManualClock() throws {
        let clock = ManualClock(start: 1_000)
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        let events = PipelineEvents()
        let handler = RecordingHandler(events: events, socket: socket, period: 20_000_000)
        let thread = try PipelineThread(name: "otkit-test-timer", clock: clock, sockets: [socket], handler: handler)
        defer { thread.stop() }
        #expect(Support.waitUntil { events.started.load(ordering: .acquiring) == 1 })
        // wokenUp runs before runTimers in a turn: wait for the timer check itself.
        var checks = events.timerChecks.load(ordering: .acquiring)
        thread.wake()
        #expect(Support.waitUntil { events.timerChecks.load(ordering: .acquiring) > checks })
        #expect(events.timerFires.load(ordering: .acquiring) == 0)

        clock.advance(by: 20_000_000)
        thread.wake()
        #expect(Support.waitUntil { events.timerFires.load(ordering: .acquiring) == 1 })
        #expect(events.lastTimerNow.load(ordering: .relaxed) == 20_001_000)

        clock.advance(by: 19_000_000)
        checks = events.timerChecks.load(ordering: .acquiring)
        thread.wake()
        #expect(Support.waitUntil { events.timerChecks.load(ordering: .acquiring) > checks })
        #expect(events.timerFires.load(ordering: .acquiring) == 1)
        clock.advance(by: 1_000_000)
        thread.wake()
        #expect(Support.waitUntil { events.timerFires.load(ordering: .acquiring) == 2 })
    }

    @Test("Timers on the system clock fire repeatedly without wake-ups")
    func timersOnSystemClock() throws {
        let socket = try UDPSocket(bindingTo: .ipv4Loopback())
        let events = PipelineEvents()
        let handler = RecordingHandler(events: events, socket: socket, period: 2_000_000)
        let start = MonotonicClock.nanoseconds()
        let thread = try PipelineThread(name: "otkit-test-tick", sockets: [socket], handler: handler)
        #expect(Support.waitUntil { events.timerFires.load(ordering: .acquiring) >= 5 })
        thread.stop()
        // Five periods must have passed: a lower bound on time, never an upper one.
        #expect(events.lastTimerNow.load(ordering: .relaxed) >= start + 5 * 2_000_000)
        #expect(events.wakeUps.load(ordering: .relaxed) == 0)
    }
}
