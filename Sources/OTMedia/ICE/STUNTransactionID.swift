import COpenSSL

/// The 96-bit transaction id of a STUN message, kept as two integers so it is a plain
/// `Hashable` value (big-endian order on the wire: `head` then `tail`).
public struct STUNTransactionID: Sendable, Hashable, CustomStringConvertible {
    /// Bytes 8–11 of the message.
    public var head: UInt32
    /// Bytes 12–19 of the message.
    public var tail: UInt64

    /// An id from its two parts.
    public init(head: UInt32, tail: UInt64) {
        self.head = head
        self.tail = tail
    }

    /// Twelve random bytes from OpenSSL's `RAND_bytes` (RFC 8489 section 6: uniformly
    /// random). Cost: one `RAND_bytes` call.
    public static func random() -> STUNTransactionID {
        var bytes = (UInt32(0), UInt64(0))
        let ok = withUnsafeMutableBytes(of: &bytes.0) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 4) == 1 }
            && withUnsafeMutableBytes(of: &bytes.1) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) == 1 }
        precondition(ok, "RAND_bytes failed in libcrypto")
        return STUNTransactionID(head: bytes.0, tail: bytes.1)
    }

    /// 24 hex digits. Allocates a string.
    public var description: String {
        let high = String(head, radix: 16), low = String(tail, radix: 16)
        return String(repeating: "0", count: 8 - high.count) + high + String(repeating: "0", count: 16 - low.count) + low
    }

    /// Reads the id at bytes 8–19 of `message` (the caller checked there are 20).
    init(reading message: UnsafeRawBufferPointer) {
        self.init(head: message.be32(8), tail: message.be64(12))
    }

    /// Writes the id at bytes 8–19 of `message`.
    func write(into message: UnsafeMutableRawBufferPointer) {
        message.storeBE32(head, at: 8)
        message.storeBE32(UInt32(truncatingIfNeeded: tail >> 32), at: 12)
        message.storeBE32(UInt32(truncatingIfNeeded: tail), at: 16)
    }
}
