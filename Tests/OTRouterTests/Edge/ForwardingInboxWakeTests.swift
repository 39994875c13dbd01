import OTMedia
@testable import OTRouter
import Testing

/// The hand-over from the edge's workers to a stream's forwarding thread wakes the thread
/// only when it said it would sleep (its last drain found the inbox empty): a thread that
/// is busy draining takes later packets on its next round without a wake-up.
@Suite struct ForwardingInboxWakeTests {
    /// A handler that does nothing (the thread is only something to wake).
    final class IdleHandler: PipelineHandler, @unchecked Sendable {}

    private static let packet = [UInt8](repeating: 0x80, count: 200)

    private func push(_ inbox: ForwardingInbox, _ count: Int = 1) {
        for _ in 0..<count { Self.packet.withUnsafeBytes { inbox.push($0, tag: 0) } }
    }

    /// Drains and recycles; returns how many packets were taken.
    private func drain(_ inbox: ForwardingInbox) -> Int {
        var buffers: [PacketBuffer] = [], tags: [UInt32] = []
        inbox.drain(into: &buffers, tags: &tags)
        let count = buffers.count
        #expect(tags.count == count)
        inbox.recycle(&buffers)
        return count
    }

    @Test func aBusyThreadIsNotWokenForPacketsItWillDrainAnyway() throws {
        let inbox = ForwardingInbox(capacity: 64, initial: 8)
        let thread = try PipelineThread(name: "otk-test-inbox", sockets: [], handler: IdleHandler())
        defer { thread.stop() }
        inbox.attach(thread)

        // Asleep at first: a batch of pushes wakes it once.
        push(inbox, 3)
        #expect(inbox.wakeIfPending())
        #expect(!inbox.wakeIfPending(), "one wake-up per batch")
        // Woken, it drains packets: it is busy and drains again before sleeping, so what
        // arrives meanwhile costs no wake-up (main woke it again here).
        #expect(drain(inbox) == 3)
        push(inbox, 2)
        #expect(!inbox.wakeIfPending(), "a busy thread is not woken")
        #expect(drain(inbox) == 2, "its next round takes them")
        // That round found packets too: still busy.
        push(inbox)
        #expect(!inbox.wakeIfPending())
        #expect(drain(inbox) == 1)
        // A round that finds nothing means it goes to sleep: the next push wakes it.
        #expect(drain(inbox) == 0)
        push(inbox)
        #expect(inbox.wakeIfPending(), "an idle thread is woken")
        #expect(drain(inbox) == 1)
        #expect(drain(inbox) == 0)
        #expect(!inbox.wakeIfPending(), "nothing pushed, nothing to wake")
    }

    @Test func everyPushAfterAnEmptyDrainLeavesAWakeUpDue() throws {
        // Many rounds of: the consumer finds the inbox empty (about to sleep), a producer
        // pushes; every such push must leave a wake-up due, or the packet would wait.
        let inbox = ForwardingInbox(capacity: 64, initial: 8)
        let thread = try PipelineThread(name: "otk-test-inbox", sockets: [], handler: IdleHandler())
        defer { thread.stop() }
        inbox.attach(thread)
        for _ in 0..<100 {
            #expect(drain(inbox) == 0)
            push(inbox)
            push(inbox)
            #expect(inbox.wakeIfPending())
            #expect(drain(inbox) == 2)
        }
    }
}
