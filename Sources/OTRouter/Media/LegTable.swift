import Synchronization

/// The hand-over of a forwarding group's subscriber legs from the control plane to its
/// running forwarding thread.
///
/// The control plane (a subscribe, an unsubscribe) posts the whole new leg list plus the
/// legs that left, then wakes the thread; the thread takes both at its next wake-up,
/// starts forwarding to the new list and closes the legs that left (their SRTP sessions
/// and buffers belong to that thread, so only it may let them go while it runs). Posting
/// twice before the thread looks keeps the newest list and every leg that left.
///
/// Cost: one short lock per membership change and one per wake-up of the thread (never
/// per packet).
final class LegTable: Sendable {
    private struct Mailbox {
        var next: [SubscriberLeg]?
        var leaving: [SubscriberLeg] = []
    }

    private let mailbox = Mutex(Mailbox())

    /// Posts `legs` as the list to forward to, and `leaving` as legs to close.
    func post(_ legs: [SubscriberLeg], leaving: SubscriberLeg? = nil) {
        mailbox.withLock { box in
            box.next = legs
            if let leaving { box.leaving.append(leaving) }
        }
    }

    /// Takes what was posted since the last call: the new list (nil if none) and the legs
    /// to close. Called by the forwarding thread, or by the owner after the thread ended.
    func take() -> (next: [SubscriberLeg]?, leaving: [SubscriberLeg]) {
        mailbox.withLock { box in
            defer { box = Mailbox() }
            return (box.next, box.leaving)
        }
    }
}
