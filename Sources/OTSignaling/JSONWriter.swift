/// A JSON value for claims we write: strings and integers only.
enum ClaimValue {
    /// A JSON string.
    case string(String)
    /// A JSON integer.
    case int(Int64)
}

/// Writes a flat JSON object with keys in the given order, compact (`,` and `:` without
/// spaces) and ASCII-only (`\uXXXX` for everything else), the way PyJWT serialises claims.
/// Order matters only for byte-exact comparison with the OpenTok server SDK's output.
enum JSONWriter {
    /// The object `{"k":v,...}` for ordered `claims`.
    static func object(_ claims: [(String, ClaimValue)]) -> String {
        var out = "{"
        for (i, (key, value)) in claims.enumerated() {
            if i > 0 { out += "," }
            out += string(key) + ":"
            switch value {
            case .string(let s): out += string(s)
            case .int(let n): out += String(n)
            }
        }
        return out + "}"
    }

    /// `text` as a JSON string literal, escaped as Python's `json.dumps(ensure_ascii=True)`.
    static func string(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}
