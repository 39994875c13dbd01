import Glibc

/// One datagram's worth of memory, reused through a `PacketBufferPool`.
///
/// ```
///  0          start            start+length          capacity
///  | headroom |  packet bytes   |      tailroom       |
/// ```
/// A received datagram lands at `start` = the pool's headroom, so an RTP header or a relay
/// header can be prepended in place (`prepend`) and an SRTP auth tag appended in place
/// (`append`) without copying. The buffer also carries the peer address (source on
/// receive, destination on send), the receive time and whether the kernel cut the datagram.
///
/// Ownership: one owner at a time. `PacketBufferPool.take()` hands it out, the owner may
/// pass it to another thread (it is `Sendable` for that hand-over), and exactly one owner
/// gives it back with `PacketBufferPool.release(_:)`. Nothing here locks or allocates.
/// Its fields are read and written per packet, by that one owner only, so they opt out
/// of Swift's dynamic exclusivity checks (`@exclusivity(unchecked)`): a check per field
/// access was a measurable share of the router's forwarding loop.
public final class PacketBuffer: @unchecked Sendable {
    /// Bytes reserved for the peer address in front of the data (a `sockaddr_storage`).
    static let addressBytes = 128

    /// Total bytes of packet memory (headroom + packet + tailroom).
    public let capacity: Int
    /// Where a fresh packet starts (`reset()` puts `start` here).
    public let headroom: Int
    /// The address area (128 bytes) followed by `capacity` data bytes, 64-byte aligned.
    let memory: UnsafeMutableRawPointer
    /// The first packet byte, as an offset into the data area.
    @exclusivity(unchecked) public private(set) var start: Int
    /// The packet's length in bytes.
    @exclusivity(unchecked) public private(set) var length: Int = 0
    /// When the socket layer received this datagram, from the receiving side's `MediaClock`.
    @exclusivity(unchecked) public var receiveTimestamp: UInt64 = 0
    /// True when the datagram was larger than the buffer and the kernel cut it (MSG_TRUNC):
    /// the bytes are incomplete and must not be parsed as a whole packet.
    @exclusivity(unchecked) public var isTruncated = false
    /// For a message read from a socket with receive coalescing (UDP GRO): the length of
    /// each datagram it carries but the last, which may be shorter; 0 when the bytes are
    /// one datagram. Split before parsing (`UDPSocket.init(receiveCoalescing:)`).
    @exclusivity(unchecked) public var segmentSize = 0
    /// Length of the address in the address area; 0 means "no peer".
    @exclusivity(unchecked) var addressLength: socklen_t = 0
    /// The pool's bookkeeping: true while the buffer sits in the free list.
    @exclusivity(unchecked) var isFree = false

    init(capacity: Int, headroom: Int) {
        precondition(capacity > 0 && headroom >= 0 && headroom < capacity, "packet buffer sizes out of range")
        self.capacity = capacity
        self.headroom = headroom
        self.start = headroom
        memory = UnsafeMutableRawPointer.allocate(byteCount: Self.addressBytes + capacity, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: Self.addressBytes + capacity)
    }

    deinit { memory.deallocate() }

    /// The data area's first byte (offset 0, before the headroom).
    var data: UnsafeMutableRawPointer { memory + Self.addressBytes }
    /// Where the kernel writes and reads the peer address.
    var addressPointer: UnsafeMutableRawPointer { memory }

    /// The packet bytes, `start..<start+length`. Valid until the buffer is released.
    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: data + start, count: length)
    }

    /// Free bytes in front of the packet.
    public var headroomAvailable: Int { start }
    /// Free bytes after the packet.
    public var tailroom: Int { capacity - start - length }

    /// Everything from `start` to the end of the buffer, for writing a new packet before
    /// calling `setLength(_:)`.
    public var writableBytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: data + start, count: capacity - start)
    }

    /// Sets the packet length after writing into `writableBytes`. Traps if it does not fit.
    public func setLength(_ newLength: Int) {
        precondition(newLength >= 0 && start + newLength <= capacity, "packet length \(newLength) exceeds the buffer")
        length = newLength
    }

    /// Copies `source` in as the whole packet at the headroom offset; returns false (and
    /// changes nothing) if it does not fit.
    @discardableResult
    public func assign(_ source: UnsafeRawBufferPointer) -> Bool {
        guard headroom + source.count <= capacity else { return false }
        start = headroom
        length = source.count
        if let base = source.baseAddress, source.count > 0 { (data + start).copyMemory(from: base, byteCount: source.count) }
        return true
    }

    /// Grows the packet at the front by `count` bytes (taken from the headroom) and returns
    /// them for writing a header. Traps if the headroom is too small.
    public func prepend(_ count: Int) -> UnsafeMutableRawBufferPointer {
        precondition(count >= 0 && count <= start, "not enough headroom to prepend \(count) bytes")
        start -= count
        length += count
        return UnsafeMutableRawBufferPointer(start: data + start, count: count)
    }

    /// Grows the packet at the back by `count` bytes (taken from the tailroom) and returns
    /// them for writing a trailer such as an SRTP tag. Traps if the tailroom is too small.
    public func append(_ count: Int) -> UnsafeMutableRawBufferPointer {
        precondition(count >= 0 && count <= tailroom, "not enough tailroom to append \(count) bytes")
        let end = data + start + length
        length += count
        return UnsafeMutableRawBufferPointer(start: end, count: count)
    }

    /// Drops `count` bytes from the front of the packet (they become headroom).
    public func trimFront(_ count: Int) {
        precondition(count >= 0 && count <= length, "cannot trim \(count) of \(length) bytes")
        start += count
        length -= count
    }

    /// Drops `count` bytes from the back of the packet (they become tailroom).
    public func trimBack(_ count: Int) {
        precondition(count >= 0 && count <= length, "cannot trim \(count) of \(length) bytes")
        length -= count
    }

    /// Empties the buffer: no bytes, no peer, not truncated, start back at the headroom.
    public func reset() {
        start = headroom
        length = 0
        addressLength = 0
        receiveTimestamp = 0
        isTruncated = false
        segmentSize = 0
    }

    /// The source of a received datagram, or the destination of one to send (nil: the
    /// socket's connected peer). Reading copies 128 bytes; no allocation.
    public var peer: SocketAddress? {
        get {
            guard addressLength > 0 else { return nil }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: memory, count: Self.addressBytes)) }
            return SocketAddress(storage: storage, length: addressLength)
        }
        set {
            guard let address = newValue else { addressLength = 0; return }
            withUnsafeBytes(of: address.storage) { memory.copyMemory(from: $0.baseAddress!, byteCount: Self.addressBytes) }
            addressLength = address.length
        }
    }
}
