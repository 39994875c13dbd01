/// A fixed-size record inside an RTCP packet (a report block, an SSRC, a NACK pair, a FIR
/// entry) that `RTCPList` decodes lazily from the wire.
public protocol RTCPListItem: Sendable, Equatable {
    /// The record's size on the wire in bytes.
    static var wireSize: Int { get }
    /// Decodes the record at `offset`. The caller has checked that `wireSize` bytes are there.
    init(wire bytes: UnsafeRawBufferPointer, at offset: Int)
    /// Encodes the record at `offset`. The caller has checked that `wireSize` bytes are there.
    func write(wire bytes: UnsafeMutableRawBufferPointer, at offset: Int)
}

/// The list inside an RTCP packet (report blocks, SSRCs, NACK pairs, FIR entries), as a
/// random-access collection that allocates nothing.
///
/// A parsed list is a view over the packet's bytes and decodes an element each time it is
/// subscripted; a list to write is a view over the caller's `UnsafeBufferPointer`. Either
/// way the memory belongs to someone else and must outlive the list.
/// Cost: O(1) per element, no allocation.
public struct RTCPList<Element: RTCPListItem>: RandomAccessCollection, Equatable {
    enum Storage {
        case wire(UnsafeRawBufferPointer)
        case values(UnsafeBufferPointer<Element>)
    }

    let storage: Storage
    /// The number of elements.
    public let count: Int

    /// A list over the caller's elements (for writing). The buffer must outlive the list.
    public init(_ elements: UnsafeBufferPointer<Element>) {
        storage = .values(elements)
        count = elements.count
    }

    /// A list over `count` records at the start of `bytes` (for parsing). The caller has
    /// checked that `bytes` holds them.
    init(wire bytes: UnsafeRawBufferPointer, count: Int) {
        storage = .wire(bytes)
        self.count = count
    }

    /// The empty list.
    public static var empty: RTCPList { RTCPList(wire: RTCPWire.empty, count: 0) }

    /// 0.
    public var startIndex: Int { 0 }
    /// `count`.
    public var endIndex: Int { count }

    /// The element at `position`, decoded from the bytes if parsed. Traps on an index out
    /// of range, as `Array` does (a caller bug, never an input one).
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "RTCPList index out of range")
        switch storage {
        case let .wire(bytes): return Element(wire: bytes, at: position * Element.wireSize)
        case let .values(values): return values[position]
        }
    }

    /// Bytes the list takes on the wire.
    public var wireSize: Int { count * Element.wireSize }

    /// Encodes every element at `offset`. The caller has checked the room.
    func write(wire bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        switch storage {
        case let .wire(source):
            bytes.copy(source.view(from: 0, count: wireSize), to: offset)
        case let .values(values):
            for (index, element) in values.enumerated() {
                element.write(wire: bytes, at: offset + index * Element.wireSize)
            }
        }
    }

    /// Same elements in the same order.
    public static func == (lhs: RTCPList, rhs: RTCPList) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

/// An SSRC in a list (BYE, REMB): 4 bytes, big-endian.
extension UInt32: RTCPListItem {
    /// 4.
    public static var wireSize: Int { 4 }
    /// Reads a big-endian 32-bit word.
    public init(wire bytes: UnsafeRawBufferPointer, at offset: Int) { self = bytes.be32(offset) }
    /// Writes a big-endian 32-bit word.
    public func write(wire bytes: UnsafeMutableRawBufferPointer, at offset: Int) { bytes.storeBE32(self, at: offset) }
}
