/// Reads RESP2 replies from the bytes of a Redis connection, as they arrive. Every
/// length and count is range-checked against ``RedisProtocolLimits`` before it is used,
/// numbers are parsed digit by digit with overflow checks, and every line and bulk
/// string must end in CRLF: a malformed or oversized reply is a ``RedisProtocolError``
/// (the connection is then out of step and must be closed), never a trap.
///
/// Cost: a partial reply is parsed again from its start when more bytes arrive (replies
/// in the control plane are small); memory is bounded by `maxBufferedBytes`.
public struct RedisReplyParser: Sendable {
    /// The limits every reply is checked against.
    public let limits: RedisProtocolLimits
    private var buffer: [UInt8] = []
    private var start = 0

    /// A parser with no bytes yet.
    public init(limits: RedisProtocolLimits = RedisProtocolLimits()) { self.limits = limits }

    /// Bytes received and not yet consumed by a whole reply.
    public var bufferedBytes: Int { buffer.count - start }

    /// Appends received bytes.
    /// - Throws: ``RedisProtocolError`` when more than `maxBufferedBytes` would wait.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(RedisProtocolError) {
        try makeRoom(for: bytes.count)
        buffer.append(contentsOf: bytes)
    }

    /// Appends received bytes (an array). - Throws: as ``feed(_:)-(UnsafeRawBufferPointer)``.
    public mutating func feed(_ bytes: [UInt8]) throws(RedisProtocolError) {
        try makeRoom(for: bytes.count)
        buffer.append(contentsOf: bytes)
    }

    /// Refuses `count` more bytes past the limit; drops consumed bytes once they are half the buffer.
    private mutating func makeRoom(for count: Int) throws(RedisProtocolError) {
        guard count <= limits.maxBufferedBytes - bufferedBytes else {
            throw RedisProtocolError("more than \(limits.maxBufferedBytes) bytes of replies are waiting")
        }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// The next whole reply, nil when its bytes have not all arrived.
    /// - Throws: ``RedisProtocolError`` for anything that is not valid RESP2 within the limits.
    public mutating func next() throws(RedisProtocolError) -> RedisReply? {
        var cursor = start
        guard let reply = try parse(at: &cursor, depth: 0) else { return nil }
        start = cursor
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            start = 0
        }
        return reply
    }

    // MARK: - Parsing (cursor moves only past whole elements)

    private func parse(at cursor: inout Int, depth: Int) throws(RedisProtocolError) -> RedisReply? {
        guard cursor < buffer.count else { return nil }
        let kind = buffer[cursor]
        var position = cursor + 1
        guard let line = try line(at: &position) else { return nil }
        switch kind {
        case UInt8(ascii: "+"):
            cursor = position
            return .status(String(decoding: buffer[line], as: UTF8.self))
        case UInt8(ascii: "-"):
            cursor = position
            return .error(String(decoding: buffer[line], as: UTF8.self))
        case UInt8(ascii: ":"):
            let value = try number(line, what: "integer")
            cursor = position
            return .integer(value)
        case UInt8(ascii: "$"):
            let length = try number(line, what: "bulk length")
            if length == -1 {
                cursor = position
                return .bulk(nil)
            }
            guard length >= 0, length <= Int64(limits.maxBulkBytes) else {
                throw RedisProtocolError("bulk length \(length) at byte \(cursor - start) is outside 0...\(limits.maxBulkBytes)")
            }
            let count = Int(length)
            guard buffer.count - position >= count + 2 else { return nil }
            guard buffer[position + count] == 13, buffer[position + count + 1] == 10 else {
                throw RedisProtocolError("bulk string at byte \(cursor - start) does not end in CRLF after \(count) bytes")
            }
            let bytes = Array(buffer[position..<(position + count)])
            cursor = position + count + 2
            return .bulk(bytes)
        case UInt8(ascii: "*"):
            let count = try number(line, what: "array length")
            if count == -1 {
                cursor = position
                return .array(nil)
            }
            guard count >= 0, count <= Int64(limits.maxArrayElements) else {
                throw RedisProtocolError("array length \(count) at byte \(cursor - start) is outside 0...\(limits.maxArrayElements)")
            }
            guard depth < limits.maxDepth else {
                throw RedisProtocolError("arrays nested deeper than \(limits.maxDepth) at byte \(cursor - start)")
            }
            // Each element takes at least 3 bytes ("+\r\n"): never reserve more than could follow.
            var items: [RedisReply] = []
            items.reserveCapacity(min(Int(count), (buffer.count - position) / 3))
            for _ in 0..<Int(count) {
                guard let item = try parse(at: &position, depth: depth + 1) else { return nil }
                items.append(item)
            }
            cursor = position
            return .array(items)
        default:
            throw RedisProtocolError("byte \(kind) at \(cursor - start) is not a RESP2 type (+ - : $ *)")
        }
    }

    /// The range of the line at `position` (without its CRLF), moving `position` past
    /// the CRLF; nil when the CRLF has not arrived yet.
    private func line(at position: inout Int) throws(RedisProtocolError) -> Range<Int>? {
        let first = position
        var index = first
        while index < buffer.count {
            let byte = buffer[index]
            if byte == 13 {
                guard index + 1 < buffer.count else { return nil }
                guard buffer[index + 1] == 10 else { throw RedisProtocolError("CR without LF at byte \(index - start)") }
                position = index + 2
                return first..<index
            }
            if byte == 10 { throw RedisProtocolError("LF without CR at byte \(index - start)") }
            if index - first >= limits.maxLineBytes {
                throw RedisProtocolError("a line longer than \(limits.maxLineBytes) bytes at byte \(first - start)")
            }
            index += 1
        }
        return nil
    }

    /// A signed decimal of at most 19 digits with no sign other than a leading `-`.
    private func number(_ range: Range<Int>, what: String) throws(RedisProtocolError) -> Int64 {
        var index = range.lowerBound
        var negative = false
        if index < range.upperBound, buffer[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < range.upperBound else { throw RedisProtocolError("\(what) has no digits") }
        var value: Int64 = 0
        while index < range.upperBound {
            let byte = buffer[index]
            guard byte >= 48, byte <= 57 else { throw RedisProtocolError("\(what) holds a byte \(byte) that is not a digit") }
            let digit = Int64(byte - 48)
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { throw RedisProtocolError("\(what) does not fit in 64 bits") }
            value = sum
            index += 1
        }
        return value
    }
}
