/// Strict UTF-8 validation for WebSocket text (RFC 6455 §8.1, RFC 3629): no overlong
/// forms, no surrogates (U+D800–U+DFFF), nothing above U+10FFFF, no truncated sequence.
/// Cost: one pass over the bytes, no allocation.
enum UTF8Validation {
    /// Whether `bytes` are well-formed UTF-8 as a whole.
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            // The allowed range of the second byte narrows for E0, ED, F0 and F4 (RFC 3629 §4).
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard count - index >= length else { return false }
            let second = bytes[index + 1]
            guard second >= low && second <= high else { return false }
            var next = index + 2
            while next < index + length {
                guard bytes[next] & 0xC0 == 0x80 else { return false }
                next += 1
            }
            index += length
        }
        return true
    }

    /// Whether the array's bytes are well-formed UTF-8.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }
}
