/// Wrap-around arithmetic on RTP's 16-bit sequence numbers and 32-bit timestamps
/// (RFC 3550 section 5.1 and appendix A.1: both wrap, so "newer" means "ahead by less
/// than half the number space").
///
/// Cost: a subtraction and a comparison.
public enum RTPSerial {
    /// True when `a` comes after `b` (ahead by 1...32767, modulo 2^16). Exactly half
    /// apart (32768) counts as newer when `a > b`, so the relation is antisymmetric.
    public static func isNewer(_ a: UInt16, than b: UInt16) -> Bool {
        let delta = a &- b
        return delta == 0x8000 ? a > b : delta != 0 && delta < 0x8000
    }

    /// True when timestamp `a` comes after `b` (modulo 2^32, same rule).
    public static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        let delta = a &- b
        return delta == 0x8000_0000 ? a > b : delta != 0 && delta < 0x8000_0000
    }

    /// The signed distance from `b` to `a` on the 16-bit circle (-32768...32767):
    /// positive when `a` is newer.
    public static func distance(from b: UInt16, to a: UInt16) -> Int {
        Int(Int16(bitPattern: a &- b))
    }

    /// The signed distance from `b` to `a` on the 32-bit circle.
    public static func distance(from b: UInt32, to a: UInt32) -> Int {
        Int(Int32(bitPattern: a &- b))
    }
}

/// Extends a wrapping counter (RTP sequence numbers, timestamps) to 64 bits, as RFC
/// 3550 appendix A.1 does with its cycle count: each new value is placed at the
/// extended value nearest to the last one, so forward steps across the wrap add a cycle
/// and a late (reordered) packet from before the wrap maps back below it instead of
/// jumping a whole cycle ahead.
///
/// The first value is taken as is (extended = value). Values before the first one can
/// map below zero (a reordered packet from before the first one seen): the result is
/// signed. Cost: a subtraction and an addition; not thread-safe (one per stream).
public struct RTPUnwrapper<Value: FixedWidthInteger & UnsignedInteger>: Sendable {
    private var last: Int64?

    /// A new unwrapper that has seen nothing.
    public init() {}

    /// The extended value of the last call, or nil before the first.
    public var lastExtended: Int64? { last }

    /// Extends `value` and remembers it as the reference for the next call.
    public mutating func unwrap(_ value: Value) -> Int64 {
        let extended = peek(value)
        last = extended
        return extended
    }

    /// The extended value `value` would get, without remembering it (for a look at an
    /// out-of-window packet before deciding to accept it).
    public func peek(_ value: Value) -> Int64 {
        guard let last else { return Int64(value) }
        let lastValue = Value(truncatingIfNeeded: last)
        let forward = value &- lastValue                  // modulo 2^bits
        let half = Value(1) << (Value.bitWidth - 1)
        if forward < half || (forward == half && value > lastValue) {
            return last + Int64(forward)
        }
        return last - Int64(lastValue &- value)
    }
}

/// Extends 16-bit RTP sequence numbers to 64 bits (see `RTPUnwrapper`).
public typealias SequenceUnwrapper = RTPUnwrapper<UInt16>
/// Extends 32-bit RTP timestamps to 64 bits (see `RTPUnwrapper`).
public typealias TimestampUnwrapper = RTPUnwrapper<UInt32>
