/// Up to 15 contributing-source identifiers (RFC 3550 section 5.1, the CC field has four
/// bits), stored inline: no array, no allocation.
///
/// Cost: 64 bytes of inline storage; `append` and subscripting are O(1).
public struct RTPCSRCList: Sendable, Equatable, RandomAccessCollection {
    /// The most CSRCs an RTP header can carry.
    public static let capacity = 15

    private var storage = InlineArray<15, UInt32>(repeating: 0)
    /// How many CSRCs are stored.
    public private(set) var count = 0

    /// An empty list.
    public init() {}

    /// The first index (0).
    public var startIndex: Int { 0 }
    /// One past the last stored CSRC.
    public var endIndex: Int { count }

    /// The CSRC at `index` (must be below `count`).
    public subscript(index: Int) -> UInt32 {
        precondition(index >= 0 && index < count, "CSRC index out of range")
        return storage[index]
    }

    /// Adds a CSRC; throws `tooManyCSRCs` past 15.
    public mutating func append(_ csrc: UInt32) throws(RTPError) {
        guard count < Self.capacity else { throw .tooManyCSRCs(count + 1) }
        storage[count] = csrc
        count += 1
    }

    /// Removes every CSRC.
    public mutating func removeAll() { count = 0 }

    /// Equal when the same CSRCs are stored in the same order.
    public static func == (a: RTPCSRCList, b: RTPCSRCList) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a.storage[i] != b.storage[i] { return false }
        return true
    }
}
