/// `application/x-www-form-urlencoded` as Python's `urlencode` (`quote_plus`) writes it,
/// which is what a T1 token's data string is: unreserved `A–Z a–z 0–9 _ . - ~` kept,
/// space as `+`, every other UTF-8 byte as `%XX` (uppercase).
enum FormEncoding {
    /// Encodes ordered `(name, value)` pairs joined with `&`.
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// Escapes one name or value.
    static func escape(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"):
                out.append(b)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `a=b&c=d` into ordered pairs. Returns nil on a field without `=`, a bad
    /// `%XX` escape, or bytes that are not UTF-8. An empty string gives no fields.
    static func decode(_ text: String) -> [(String, String)]? {
        if text.isEmpty { return [] }
        var fields: [(String, String)] = []
        for part in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let eq = part.firstIndex(of: "="),
                  let name = unescape(part[..<eq]),
                  let value = unescape(part[part.index(after: eq)...])
            else { return nil }
            fields.append((name, value))
        }
        return fields
    }

    private static func unescape(_ text: Substring) -> String? {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        var bytes = text.utf8.makeIterator()
        func nibble(_ c: UInt8?) -> UInt8? { c.flatMap(hexDigitValue) }
        while let b = bytes.next() {
            switch b {
            case UInt8(ascii: "+"): out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let hi = nibble(bytes.next()), let lo = nibble(bytes.next()) else { return nil }
                out.append(hi << 4 | lo)
            default: out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }
}
