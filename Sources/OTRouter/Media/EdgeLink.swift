import OTMedia
import Synchronization

/// A router leg's attachment to the one-port `MediaEdge` (its `EdgeLegSink`): what the
/// edge's workers learn about the leg travels to the group's forwarding thread through it.
///
/// - Packets: unprotected by the worker, copied into the group's `ForwardingInbox` under this
///   leg's tag (no lookup: the worker found this object with the leg).
/// - Keys and address: the DTLS-exported sender session and the ICE-selected address are
///   parked here (a short lock), `changed` is set and the forwarding thread is woken; it
///   takes them at its next wake-up (`takeChanges`), so the leg's sender session is used
///   by that thread only (libsrtp sessions are not thread-safe).
/// - Consent: when the leg's ICE consent lapses `lapsed` is set and the forwarding thread
///   sends it nothing (its `RouterLeg.address` reads nil; each refusal counted in
///   `withheld`); the leg stays, with its keys and address, until signaling removes it, and
///   the check that restores consent clears the flag and wakes the thread.
/// - Ending: handshake failed: `ended` (set by the router) removes the leg as if it had left.
///
/// Cost: a few words and a lock; nothing allocated per packet.
final class EdgeLink: EdgeLegSink {
    /// The leg's name on the edge.
    let id: EdgeLegID
    /// Its tag in the group's inbox (0: the publisher).
    let tag: UInt32
    /// Where its packets go.
    let inbox: ForwardingInbox
    /// Set when keys or an address are waiting for the forwarding thread.
    let changed = Atomic<Bool>(false)
    /// True while the leg's ICE consent is lapsed: the forwarding thread sends it nothing.
    let lapsed = Atomic<Bool>(false)
    /// Counts what the forwarding thread did not send because consent lapsed (shared by
    /// the router's links).
    let withheld: EdgeWithheldCounter

    private struct Pending: @unchecked Sendable {
        var sender: SRTPSession?
        var address: SocketAddress?
        var ended: (@Sendable (EdgeLegEnding) -> Void)?
        var restored = false
    }

    private let pending = Mutex(Pending())

    init(id: EdgeLegID, tag: UInt32, inbox: ForwardingInbox, withheld: EdgeWithheldCounter = EdgeWithheldCounter()) {
        self.id = id
        self.tag = tag
        self.inbox = inbox
        self.withheld = withheld
    }

    /// Sets what happens when the edge ends the leg (called once, on a worker thread).
    func onEnded(_ handler: @escaping @Sendable (EdgeLegEnding) -> Void) { pending.withLock { $0.ended = handler } }

    func edgeReceived(_ packet: UnsafeRawBufferPointer, isRTCP: Bool, receivedAt: UInt64) {
        inbox.push(packet, tag: tag, receivedAt: receivedAt)
    }

    func edgeBatchEnded() { inbox.wakeIfPending() }

    func edgeKeyed(sender: SRTPSession) {
        pending.withLock { $0.sender = sender }
        changed.store(true, ordering: .releasing)
        inbox.ring()
    }

    func edgeSelected(_ address: SocketAddress) {
        pending.withLock { $0.address = address }
        changed.store(true, ordering: .releasing)
        inbox.ring()
    }

    func edgeConsent(_ granted: Bool) {
        lapsed.store(!granted, ordering: .releasing)
        guard granted else { return }
        // Wake the thread so the leg asks for a keyframe, as when it first became reachable.
        pending.withLock { $0.restored = true }
        changed.store(true, ordering: .releasing)
        inbox.ring()
    }

    func edgeEnded(_ ending: EdgeLegEnding) {
        let handler = pending.withLock { pending in
            defer { pending.ended = nil }
            return pending.ended
        }
        handler?(ending)
    }

    /// The sender session and selected address parked since the last call, and whether
    /// consent was restored meanwhile (nil: nothing new). Forwarding thread; one atomic
    /// load when nothing changed.
    func takeChanges() -> (sender: SRTPSession?, address: SocketAddress?, restored: Bool)? {
        guard changed.exchange(false, ordering: .acquiring) else { return nil }
        return pending.withLock { pending in
            defer { pending.sender = nil; pending.address = nil; pending.restored = false }
            return (pending.sender, pending.address, pending.restored)
        }
    }
}

/// Packets (and RTCP) the forwarding threads did not send to edge legs whose ICE consent
/// had lapsed; one relaxed atomic shared by a router's `EdgeLink`s.
final class EdgeWithheldCounter: Sendable {
    let count = Atomic<UInt64>(0)
}
