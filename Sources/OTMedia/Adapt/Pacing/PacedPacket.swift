/// A packet waiting in (or leaving) the `Pacer`: a small handle the caller maps to its
/// own buffer (a pool index, a slot id), never the bytes themselves.
public struct PacedPacket: Sendable, Equatable {
    /// The caller's id for the packet's buffer; 0 for a padding request.
    public var handle: UInt32
    /// Bytes it will take on the wire.
    public var size: Int
    /// What it carries: `.audio` goes to the audio queue, `.video` and `.retransmission`
    /// to the video queue, `.padding` only comes out of the pacer.
    public var kind: SentPacketKind
    /// When it was queued (sender's clock, nanoseconds).
    public var enqueueNanoseconds: UInt64

    /// Builds a record.
    public init(handle: UInt32, size: Int, kind: SentPacketKind, enqueueNanoseconds: UInt64) {
        self.handle = handle
        self.size = size
        self.kind = kind
        self.enqueueNanoseconds = enqueueNanoseconds
    }
}

/// A fixed-capacity FIFO of `PacedPacket`s: one array allocated up front, head index and
/// count; push and pop are O(1) with no allocation.
struct PacedPacketRing: Sendable {
    private var storage: [PacedPacket]
    private var head = 0
    private(set) var count = 0
    private(set) var bytes = 0

    init(capacity: Int) {
        storage = Array(repeating: PacedPacket(handle: 0, size: 0, kind: .video, enqueueNanoseconds: 0),
                        count: max(1, capacity))
    }

    var capacity: Int { storage.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == storage.count }
    var first: PacedPacket? { count == 0 ? nil : storage[head] }

    /// Appends, first dropping the oldest packet when full; returns the dropped one.
    mutating func pushDroppingOldest(_ packet: PacedPacket) -> PacedPacket? {
        let dropped = isFull ? popFirst() : nil
        push(packet)
        return dropped
    }

    /// Appends; the caller checked `isFull`.
    mutating func push(_ packet: PacedPacket) {
        var tail = head + count
        if tail >= storage.count { tail -= storage.count }
        storage[tail] = packet
        count += 1
        bytes += packet.size
    }

    /// Calls `body` with each packet, oldest first. Cost: O(count), no allocation.
    func forEach(_ body: (PacedPacket) -> Void) {
        for offset in 0..<count {
            var index = head + offset
            if index >= storage.count { index -= storage.count }
            body(storage[index])
        }
    }

    /// Removes every packet `shouldRemove` picks, handing each to `removed`; the others
    /// keep their order. Returns how many went. Cost: O(count), in place, no allocation.
    mutating func removeAll(where shouldRemove: (PacedPacket) -> Bool, removed: (PacedPacket) -> Void) -> Int {
        var kept = 0
        var gone = 0
        for offset in 0..<count {
            var index = head + offset
            if index >= storage.count { index -= storage.count }
            let packet = storage[index]
            if shouldRemove(packet) {
                removed(packet)
                bytes -= packet.size
                gone += 1
                continue
            }
            var target = head + kept
            if target >= storage.count { target -= storage.count }
            storage[target] = packet
            kept += 1
        }
        count = kept
        return gone
    }

    mutating func popFirst() -> PacedPacket? {
        guard count > 0 else { return nil }
        let packet = storage[head]
        head += 1
        if head == storage.count { head = 0 }
        count -= 1
        bytes -= packet.size
        return packet
    }
}
