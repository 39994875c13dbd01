import OTMedia
import Synchronization

/// The hand-over of a forwarding group's edge traffic from the edge's worker threads to
/// the group's forwarding thread (many producers, one consumer).
///
/// A worker copies each unprotected packet into one of the inbox's own buffers and
/// appends it with its leg's tag (`push`); the forwarding thread swaps the filled list out
/// (`drain`), handles the packets and gives the buffers back (`recycle`). One copy per
/// packet: the worker's receive buffers are reused by its next `recvmmsg`, and handing
/// them over instead would need a buffer to flow back to each worker; a ≤ 1.5 KB copy
/// costs less than the SRTP work around it. The lock is held for a pop, a memcpy and an
/// append (producers) or an array swap (consumer), never across I/O. The thread is woken
/// only when it said it is going to sleep (its last `drain` found the list empty) and only
/// once the worker's receive batch is over (`wakeIfPending`): while packets keep coming
/// the thread drains again before it sleeps (`ForwardingHandler.wokenUp`), so a steady
/// stream costs no wake-up at all and a burst after a pause costs one.
///
/// Bounded: `initial` buffers allocated at once, growing (only while all are filled, as a
/// burst outruns the thread) to `capacity`; a packet arriving when that many wait is
/// dropped and counted (`dropped`). Cost: `initial` × `bufferSize` bytes per group, up to
/// `capacity` × `bufferSize` after bursts.
final class ForwardingInbox: Sendable {
    private struct State: @unchecked Sendable {
        var filled: [PacketBuffer] = []
        var tags: [UInt32] = []
        var free: [PacketBuffer] = []
        var thread: PipelineThread?
        var closed = false
        /// The consumer's last `drain` found nothing: it is (about to be) asleep and the
        /// next push must wake it. False while it is busy, or once a wake-up is on its way.
        var consumerIdle = true
        /// A push found the consumer idle: the worker wakes it at the end of its batch.
        var wakeDue = false
    }

    private let state: Mutex<State>
    /// Where buffers come from (and new ones, up to the capacity).
    private let pool: PacketBufferPool?
    /// Packets dropped because every buffer was waiting for the forwarding thread.
    let dropped = Atomic<UInt64>(0)
    /// Tags for the group's edge legs (0 is the publisher's).
    private let nextTag = Atomic<UInt32>(1)

    init(capacity: Int = 1_024, initial count: Int = 64, bufferSize: Int = 1_600) {
        var initial = State()
        if capacity > 0 {  // a router without an edge gets an inbox that holds nothing
            let pool = PacketBufferPool(initialCount: min(count, capacity), maximumCount: capacity, bufferSize: bufferSize, headroom: 0)
            initial.free = (0 ..< min(count, capacity)).compactMap { _ in pool.take() }
            self.pool = pool
        } else {
            pool = nil
        }
        initial.filled.reserveCapacity(min(count, capacity))
        initial.tags.reserveCapacity(min(count, capacity))
        state = Mutex(initial)
    }

    /// A fresh tag for a subscriber edge leg of this group.
    func makeTag() -> UInt32 { nextTag.add(1, ordering: .relaxed).newValue }

    /// Names the thread to wake (nil once it stopped: pushes are then dropped).
    func attach(_ thread: PipelineThread?) {
        state.withLock { state in
            state.thread = thread
            state.closed = thread == nil
        }
    }

    /// Copies `packet` in for the leg tagged `tag`, with its datagram's arrival time (the
    /// wake-up waits for `wakeIfPending`). Edge worker thread.
    func push(_ packet: UnsafeRawBufferPointer, tag: UInt32, receivedAt: UInt64 = 0) {
        let queued: Bool = state.withLock { state in
            guard !state.closed, let buffer = state.free.popLast() ?? pool?.take() else { return false }
            buffer.reset()
            guard buffer.assign(packet) else {
                state.free.append(buffer)
                return false
            }
            buffer.receiveTimestamp = receivedAt  // the kernel's arrival time, for transport-wide feedback
            state.filled.append(buffer)
            state.tags.append(tag)
            if state.consumerIdle {
                state.consumerIdle = false  // one wake-up per sleep, however many pushes
                state.wakeDue = true
            }
            return true
        }
        if !queued { dropped.add(1, ordering: .relaxed) }
    }

    /// Wakes the forwarding thread if a push of this batch found it idle (edge worker,
    /// after its receive batch); returns whether it did. A lock and a flag when there is
    /// nothing to do.
    @discardableResult
    func wakeIfPending() -> Bool {
        let thread: PipelineThread?? = state.withLock { state in
            guard state.wakeDue else { return nil }
            state.wakeDue = false
            return .some(state.thread)
        }
        guard let thread else { return false }
        thread?.wake()
        return true
    }

    /// Wakes the forwarding thread (a leg's keys or address changed).
    func ring() { state.withLock { $0.thread }?.wake() }

    /// Swaps the filled packets and their tags into `buffers`/`tags` (which must be empty).
    /// Forwarding thread. Finding nothing marks the consumer idle: it must not sleep
    /// without such a `drain` (the next push wakes it); finding packets marks it busy, and
    /// it must `drain` again before it sleeps (pushes meanwhile wake nobody).
    func drain(into buffers: inout [PacketBuffer], tags: inout [UInt32]) {
        state.withLock { state in
            swap(&state.filled, &buffers)
            swap(&state.tags, &tags)
            state.consumerIdle = buffers.isEmpty
            if !buffers.isEmpty { state.wakeDue = false }  // everything pushed so far is taken now
        }
    }

    /// Gives handled buffers back and empties `buffers` (keeping its capacity).
    func recycle(_ buffers: inout [PacketBuffer]) {
        guard !buffers.isEmpty else { return }
        state.withLock { state in state.free.append(contentsOf: buffers) }
        buffers.removeAll(keepingCapacity: true)
    }
}
