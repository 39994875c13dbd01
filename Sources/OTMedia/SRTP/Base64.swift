/// Standard base64 (RFC 4648 section 4, with `=` padding), as SDES `inline:` key
/// parameters carry key material (RFC 4568 section 6.1). Small and strict on purpose:
/// OTMedia does not import Foundation. Cost: one array of the output size.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` as padded base64 text.
    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(index + 1 < bytes.count ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of padded base64 `text`, or nil if it is not canonical base64 (wrong
    /// length, a character outside the alphabet, misplaced padding, nonzero spare bits).
    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var index = 0
        while index < chars.count {
            let isLast = index + 4 == chars.count
            var values: [UInt32] = [0, 0, 0, 0]
            var padding = 0
            for offset in 0..<4 {
                let c = chars[index + offset]
                if c == UInt8(ascii: "=") {
                    // Padding only in the last group, only in its last two places, and only trailing.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    continue
                }
                guard padding == 0, let value = Self.value(of: c) else { return nil }
                values[offset] = value
            }
            let group = values[0] << 18 | values[1] << 12 | values[2] << 6 | values[3]
            out.append(UInt8(group >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(group >> 8 & 0xFF)) } else if group & 0xFFFF != 0 { return nil }
            if padding < 1 { out.append(UInt8(group & 0xFF)) } else if group & 0xFF != 0 { return nil }
            index += 4
        }
        return out
    }

    private static func value(of c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(c - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(c - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
