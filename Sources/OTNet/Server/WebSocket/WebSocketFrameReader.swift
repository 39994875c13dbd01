/// Reads the frames a WebSocket client sends (RFC 6455 §5) from the bytes as they arrive
/// and turns them into whole messages and control frames. Strict, because a server must
/// be: every client frame must be masked (§5.1), RSV bits are refused (no extension is
/// negotiated), reserved opcodes, fragmented or over-long control frames, a continuation
/// without a message, a new message inside a fragmented one and non-minimal lengths are
/// protocol errors (1002); text that is not UTF-8 is 1007; a message past the size cap
/// is 1009, judged on the 64-bit length field before it is converted or buffered. After
/// the first failure it reads nothing more (the connection is to be closed).
///
/// Service thread only. Cost: the bytes of at most one frame plus one read are buffered;
/// each payload is unmasked in one copy; a message is copied once more when its frames join.
struct WebSocketFrameReader {
    /// Why the connection must be failed (§7.1.7): the close code and reason to send.
    struct Failure: Equatable, Sendable {
        /// What was wrong, for counters.
        enum Kind: Equatable, Sendable { case unmasked, protocolError, invalidUTF8, tooLarge }
        /// The kind of violation.
        var kind: Kind
        /// The close code to send (1002, 1007 or 1009).
        var code: UInt16
        /// The close reason to send.
        var reason: String
    }

    /// What the bytes read so far completed.
    enum Event: Equatable, Sendable {
        /// A whole text message (valid UTF-8).
        case text(String)
        /// A whole binary message.
        case binary([UInt8])
        /// A ping; answer with a pong carrying the same payload.
        case ping([UInt8])
        /// A pong (nothing to do).
        case pong([UInt8])
        /// The client's close frame: its code (nil when it sent none) and reason.
        case close(code: UInt16?, reason: String)
        /// A violation: send a close frame with this code and close the connection.
        case failure(Failure)
    }

    /// The largest message (all fragments together) accepted.
    let maximumMessageBytes: Int
    private var buffer: [UInt8] = []
    private var head = 0
    private var message: [UInt8] = []
    /// The opcode (1 text, 2 binary) of the fragmented message in progress.
    private var messageOpcode: UInt8?
    /// Set by the first failure: nothing more is read.
    private(set) var failed = false

    /// A reader that accepts messages up to `maximumMessageBytes`.
    init(maximumMessageBytes: Int) {
        self.maximumMessageBytes = max(0, maximumMessageBytes)
    }

    /// Bytes buffered and not yet made into a frame.
    var bufferedBytes: Int { buffer.count - head }

    /// Adds received bytes; call `next()` until it returns nil.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !failed, !bytes.isEmpty else { return }
        if head > 0 && head == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            head = 0
        } else if head >= 64 << 10 {
            buffer.removeFirst(head)
            head = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes (an array).
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete event, or nil when more bytes are needed (or after a failure).
    mutating func next() -> Event? {
        // A loop, not recursion: thousands of tiny fragments may sit in one read.
        while true {
            switch nextFrame() {
            case .needMore: return nil
            case .fragment: continue
            case .event(let event): return event
            }
        }
    }

    private enum Step { case needMore, fragment, event(Event) }

    private mutating func nextFrame() -> Step {
        guard !failed else { return .needMore }
        let available = buffer.count - head
        guard available >= 2 else { return .needMore }
        let first = buffer[head], second = buffer[head + 1]
        let fin = first & 0x80 != 0
        let opcode = first & 0x0F
        let length7 = second & 0x7F
        // §5.1: the server must close the connection on an unmasked client frame.
        guard second & 0x80 != 0 else { return .event(fail(.unmasked, 1002, "unmasked client frame")) }
        guard first & 0x70 == 0 else { return .event(fail(.protocolError, 1002, "RSV bits set without an extension")) }
        let isControl = opcode & 0x08 != 0
        switch opcode {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: break
        default: return .event(fail(.protocolError, 1002, "reserved opcode \(opcode)"))
        }
        if isControl {
            guard fin else { return .event(fail(.protocolError, 1002, "fragmented control frame")) }
            guard length7 <= 125 else { return .event(fail(.protocolError, 1002, "control frame over 125 bytes")) }
        } else if opcode == 0 {
            guard messageOpcode != nil else { return .event(fail(.protocolError, 1002, "continuation without a message")) }
        } else {
            guard messageOpcode == nil else { return .event(fail(.protocolError, 1002, "new message inside a fragmented one")) }
        }
        // The payload length: 7 bits, or 16 or 64 bits in network order (§5.2), minimal form only.
        var headerLength = 2
        let length: UInt64
        switch length7 {
        case 126:
            guard available >= 4 else { return .needMore }
            length = UInt64(buffer[head + 2]) << 8 | UInt64(buffer[head + 3])
            guard length >= 126 else { return .event(fail(.protocolError, 1002, "non-minimal payload length")) }
            headerLength = 4
        case 127:
            guard available >= 10 else { return .needMore }
            var value: UInt64 = 0
            for index in 0..<8 { value = value << 8 | UInt64(buffer[head + 2 + index]) }
            guard value & (1 << 63) == 0 else { return .event(fail(.protocolError, 1002, "payload length with its top bit set")) }
            guard value > 0xFFFF else { return .event(fail(.protocolError, 1002, "non-minimal payload length")) }
            length = value
            headerLength = 10
        default:
            length = UInt64(length7)
        }
        // Range-checked as a UInt64, before any conversion: the cap bounds what is buffered.
        if !isControl && length > UInt64(maximumMessageBytes - message.count) {
            return .event(fail(.tooLarge, 1009, "message larger than \(maximumMessageBytes) bytes"))
        }
        let payloadLength = Int(length)  // ≤ maximumMessageBytes or ≤ 125 here
        headerLength += 4
        guard available >= headerLength + payloadLength else { return .needMore }
        let maskStart = head + headerLength - 4
        let mask = (buffer[maskStart], buffer[maskStart + 1], buffer[maskStart + 2], buffer[maskStart + 3])
        let payloadStart = head + headerLength
        var payload = [UInt8](repeating: 0, count: payloadLength)
        buffer.withUnsafeBufferPointer { source in
            payload.withUnsafeMutableBufferPointer { target in
                for index in 0..<payloadLength {
                    let key: UInt8
                    switch index & 3 {
                    case 0: key = mask.0
                    case 1: key = mask.1
                    case 2: key = mask.2
                    default: key = mask.3
                    }
                    target[index] = source[payloadStart + index] ^ key
                }
            }
        }
        head = payloadStart + payloadLength
        if isControl { return .event(control(opcode, payload)) }
        if opcode != 0 { messageOpcode = opcode }
        if message.isEmpty && fin {
            return .event(finish(opcode: messageOpcode ?? opcode, payload))
        }
        message.append(contentsOf: payload)
        guard fin else { return .fragment }
        let whole = message
        message.removeAll(keepingCapacity: message.capacity <= 64 << 10)
        return .event(finish(opcode: messageOpcode ?? 1, whole))
    }

    private mutating func finish(opcode: UInt8, _ bytes: [UInt8]) -> Event {
        messageOpcode = nil
        if opcode == 2 { return .binary(bytes) }
        guard UTF8Validation.isValid(bytes) else { return fail(.invalidUTF8, 1007, "text message that is not UTF-8") }
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    private mutating func control(_ opcode: UInt8, _ payload: [UInt8]) -> Event {
        switch opcode {
        case 0x9: return .ping(payload)
        case 0xA: return .pong(payload)
        default:
            if payload.isEmpty { return .close(code: nil, reason: "") }
            guard payload.count >= 2 else { return fail(.protocolError, 1002, "close frame with a one-byte body") }
            let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard Self.isValidReceivedCloseCode(code) else { return fail(.protocolError, 1002, "invalid close code \(code)") }
            let reason = Array(payload[2...])
            guard UTF8Validation.isValid(reason) else { return fail(.invalidUTF8, 1007, "close reason that is not UTF-8") }
            return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
        }
    }

    /// Whether a close frame may carry `code` (§7.4): the defined codes that an endpoint
    /// may send (not 1004-1006, 1015), and the registered/private range 3000-4999.
    static func isValidReceivedCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    private mutating func fail(_ kind: Failure.Kind, _ code: UInt16, _ reason: String) -> Event {
        failed = true
        buffer = []
        head = 0
        message = []
        return .failure(Failure(kind: kind, code: code, reason: reason))
    }
}
