import Synchronization

/// The fixed ring between a publisher's capture threads (producers) and its transport
/// thread (consumer): RTP packets written but not yet numbered, protected or sent.
///
/// The lock covers two index updates and one reference move per packet: no I/O, no
/// allocation (the ring's array is made once). A full ring refuses the packet (the
/// producer releases its buffer and counts a drop): the transport thread is behind.
final class OutgoingPacketQueue: Sendable {
    /// One packet handed over: its pooled buffer (header with the transport-wide
    /// extension's placeholder, `length` bytes unprotected), what it is, its payload
    /// size for the sender report, and for video which encoding it belongs to (0: the
    /// full-size one; 1...: simulcast, the pipeline's `simulcastSenders` order).
    struct Entry {
        var buffer: PacketBuffer
        var kind: SentPacketKind
        var length: Int
        var payloadBytes: Int
        var encoding: Int = 0
        /// A packet of a keyframe (never dropped as stale: it is what a receiver waits for).
        var keyframe = false
    }

    private struct Ring: ~Copyable {
        var entries: [Entry?]
        var head = 0
        var count = 0
    }

    private let ring: Mutex<Ring>
    let capacity: Int

    /// A ring of `capacity` slots.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = Mutex(Ring(entries: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Appends; false when full (the caller keeps the buffer).
    func push(_ entry: Entry) -> Bool {
        ring.withLock { ring in
            guard ring.count < ring.entries.count else { return false }
            var tail = ring.head + ring.count
            if tail >= ring.entries.count { tail -= ring.entries.count }
            ring.entries[tail] = entry
            ring.count += 1
            return true
        }
    }

    /// Takes the oldest entry, or nil when empty.
    func pop() -> Entry? {
        ring.withLock { ring in
            guard ring.count > 0 else { return nil }
            let entry = ring.entries[ring.head]
            ring.entries[ring.head] = nil
            ring.head += 1
            if ring.head == ring.entries.count { ring.head = 0 }
            ring.count -= 1
            return entry
        }
    }
}
