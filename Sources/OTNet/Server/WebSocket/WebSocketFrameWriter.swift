/// Writes server-to-client WebSocket frames (RFC 6455 §5.2): unmasked (§5.1: a server
/// never masks), FIN set (messages go out whole), the shortest length form. Cost: the
/// frame is appended to the caller's buffer in one copy of the payload.
enum WebSocketFrameWriter {
    /// Opcodes the server sends.
    enum Opcode: UInt8 { case text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA }

    /// Appends one frame carrying `payload` to `output`.
    static func append(_ opcode: Opcode, payload: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(0x80 | opcode.rawValue)
        let count = payload.count
        if count < 126 {
            output.append(UInt8(count))
        } else if count <= 0xFFFF {
            output.append(126)
            output.append(UInt8(count >> 8))
            output.append(UInt8(count & 0xFF))
        } else {
            output.append(127)
            let length = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
        }
        output.append(contentsOf: payload)
    }

    /// Appends a text frame with the UTF-8 of `text`.
    static func appendText(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { append(.text, payload: UnsafeRawBufferPointer($0), to: &output) }
    }

    /// Appends a control frame (ping, pong) with `payload` (at most 125 bytes: cut if longer).
    static func appendControl(_ opcode: Opcode, payload: [UInt8], to output: inout [UInt8]) {
        payload.prefix(125).withUnsafeBytes { append(opcode, payload: $0, to: &output) }
    }

    /// Appends a close frame: `code` and `reason` (cut to the 123 bytes a close frame
    /// holds, at a character boundary); no code: an empty body.
    static func appendClose(code: UInt16?, reason: String, to output: inout [UInt8]) {
        guard let code else {
            append(.close, payload: UnsafeRawBufferPointer(start: nil, count: 0), to: &output)
            return
        }
        var body: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var room = 123
        for scalar in reason.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            guard bytes.count <= room else { break }
            body += bytes
            room -= bytes.count
        }
        body.withUnsafeBytes { append(.close, payload: $0, to: &output) }
    }
}
