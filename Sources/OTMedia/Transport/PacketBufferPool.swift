import Synchronization

/// A fixed set of `PacketBuffer`s handed out and given back explicitly, through a free
/// list kept as a ring of references.
///
/// Why not `RecyclingPool`: it finds a free object by scanning for one nobody else
/// references, O(pool size) per take, and packet pools hold hundreds to thousands of
/// buffers (a jitter buffer or the impairment proxy's delay line keeps them all busy).
/// Here `take()` and `release(_:)` are O(1): pop and push on a ring under one uncontended
/// `Mutex` (uncontended in steady state), never held across I/O.
///
/// Allocation: every buffer is made up front (`initialCount`); the pool grows towards
/// `maximumCount` only while all buffers are busy, and `createdCount` shows whether it did —
/// a steady state stops growing. Releasing a buffer twice traps.
public final class PacketBufferPool: Sendable {
    private struct State: ~Copyable {
        var ring: [PacketBuffer?]
        var head = 0
        var count = 0
        var created = 0
    }

    private let state: Mutex<State>
    /// Bytes of packet memory per buffer (headroom + packet + tailroom).
    public let bufferSize: Int
    /// Where received and assigned packets start in each buffer: room to prepend headers.
    public let headroom: Int
    /// The most buffers this pool will ever create.
    public let maximumCount: Int

    /// Creates `initialCount` buffers of `bufferSize` bytes with `headroom` bytes in front,
    /// growing to at most `maximumCount`. The default 2048 bytes hold a 1500-byte Ethernet
    /// datagram plus 64 bytes of headroom and an SRTP tag with room to spare.
    /// Cost: `initialCount` allocations now, none later unless the pool grows.
    public init(initialCount: Int, maximumCount: Int? = nil, bufferSize: Int = 2048, headroom: Int = 64) {
        let maximum = maximumCount ?? initialCount
        precondition(initialCount >= 0 && maximum >= max(1, initialCount), "pool sizes out of range")
        precondition(headroom >= 0 && headroom < bufferSize, "headroom must be smaller than the buffer")
        self.bufferSize = bufferSize
        self.headroom = headroom
        self.maximumCount = maximum
        var ring = [PacketBuffer?](repeating: nil, count: maximum)
        for index in 0..<initialCount {
            let buffer = PacketBuffer(capacity: bufferSize, headroom: headroom)
            buffer.isFree = true
            ring[index] = buffer
        }
        state = Mutex(State(ring: ring, count: initialCount, created: initialCount))
    }

    /// A free buffer, reset (empty, start at the headroom, no peer), or nil when all
    /// `maximumCount` buffers are out. O(1); allocates only while the pool grows.
    public func take() -> PacketBuffer? {
        let buffer: PacketBuffer? = state.withLock { state in
            if state.count > 0 {
                let buffer = state.ring[state.head].take()
                state.head = (state.head + 1) % state.ring.count
                state.count -= 1
                return buffer
            }
            guard state.created < maximumCount else { return nil }
            state.created += 1
            return PacketBuffer(capacity: bufferSize, headroom: headroom)
        }
        guard let buffer else { return nil }
        buffer.isFree = false
        buffer.reset()
        return buffer
    }

    /// Gives a buffer back. The caller must not touch it afterwards. Traps if it is already
    /// free or came from another pool with a different size. O(1), no allocation.
    public func release(_ buffer: PacketBuffer) {
        precondition(buffer.capacity == bufferSize, "buffer released to the wrong pool")
        state.withLock { state in
            precondition(!buffer.isFree, "packet buffer released twice")
            precondition(state.count < state.ring.count, "more buffers released than the pool made")
            buffer.isFree = true
            state.ring[(state.head + state.count) % state.ring.count] = buffer
            state.count += 1
        }
    }

    /// How many buffers the pool has made so far (a steady state stops growing).
    public var createdCount: Int { state.withLock { $0.created } }

    /// How many buffers sit in the free list now.
    public var availableCount: Int { state.withLock { $0.count } }
}
