/// The sender's transport-wide sequence numbers
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2): one 16-bit counter
/// shared by every RTP packet on the transport (audio, video, retransmissions, padding),
/// carried in an RFC 8285 header extension, which TWCC feedback refers back to.
///
/// The counter runs unwrapped in 64 bits; the wire value is its low 16 bits. Because
/// feedback can only name packets already sent, `unwrap(_:)` maps a 16-bit value to the
/// most recent allocated number with those low bits (within the last 65536 sent).
/// Cost: an addition per allocation, a subtraction per unwrap; no allocation.
public struct TransportSequenceNumbers: Sendable, Equatable {
    /// The header extension's URI in SDP `a=extmap` lines
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2).
    public static let extensionURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// The element's data length: one 16-bit sequence number, big-endian (same section).
    public static let extensionLength = 2

    /// The first number this allocator handed out (unwrapped).
    public let first: UInt64
    /// The unwrapped number `allocate()` returns next.
    public private(set) var next: UInt64

    /// A counter whose first packet carries `start` on the wire (the draft leaves the
    /// start to the sender; 0 or a random value both work).
    public init(start: UInt16 = 0) {
        first = UInt64(start)
        next = UInt64(start)
    }

    /// The last allocated number (unwrapped), or nil before the first allocation.
    public var last: UInt64? { next > first ? next - 1 : nil }

    /// Takes the next number: the unwrapped value for the sent-packet history and its low
    /// 16 bits for the header extension.
    public mutating func allocate() -> (unwrapped: UInt64, wire: UInt16) {
        let value = next
        next += 1
        return (value, Self.wire(value))
    }

    /// The 16 bits that go on the wire for an unwrapped number.
    @inline(__always)
    public static func wire(_ unwrapped: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: unwrapped) }

    /// The unwrapped number of a received (fed-back) 16-bit value: the latest allocated
    /// number with those low bits, or nil if it would fall before `first` or nothing was
    /// allocated yet.
    public func unwrap(_ wire: UInt16) -> UInt64? {
        guard let last else { return nil }
        return Self.unwrap(wire, newest: last, oldest: first)
    }

    /// Unwraps `wire` to the latest value ≤ `newest` with those low 16 bits, or nil when
    /// that is below `oldest`. Shared with `SentPacketHistory`.
    @inline(__always)
    static func unwrap(_ wire: UInt16, newest: UInt64, oldest: UInt64) -> UInt64? {
        let back = UInt64(Self.wire(newest) &- wire)
        guard back <= newest, newest - back >= oldest else { return nil }
        return newest - back
    }

    /// Appends the transport-wide sequence element for `wire` to `extensions` under the
    /// negotiated `id` (RFC 8285 one- or two-byte form, as `extensions` is laid out).
    /// Throws what `RTPHeaderExtensions.append` throws. Cost: two bytes copied.
    public static func append(_ wire: UInt16, id: UInt8, to extensions: inout RTPHeaderExtensions) throws(RTPError) {
        try extensions.append(id: id, bigEndian: UInt64(wire), length: extensionLength)
    }
}

extension TransportSequenceNumbers {
    /// The 16-bit transport-wide sequence number in a received packet's extension block
    /// under `id`, or nil when the element is absent or not exactly two bytes
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2). Cost: one element
    /// lookup.
    public static func read(from elements: RTPHeaderExtensionElements, id: UInt8) -> UInt16? {
        guard let data = elements.element(id: id), data.count == extensionLength else { return nil }
        return UInt16(data[0]) << 8 | UInt16(data[1])
    }
}
