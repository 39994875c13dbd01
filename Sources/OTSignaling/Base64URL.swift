import Foundation

/// Base64 in the two alphabets OpenTok uses: standard (`+/`, `=` padding; T1 tokens) and
/// URL-safe (`-_`, no padding; JWTs and session ids, RFC 4648 §5).
///
/// Not a per-packet path: these run once per token or REST request and allocate their
/// results (cost O(n) in the input length).
public enum Base64URL {
    /// Encodes `bytes` as unpadded base64url (`-`, `_`). Allocates the result string.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Encodes the UTF-8 bytes of `text` as unpadded base64url. Allocates the result.
    public static func encode(_ text: String) -> String { encode(Array(text.utf8)) }

    /// Decodes base64url; `=` padding is optional, and the standard `+` `/` are accepted
    /// in place of `-` `_`. Returns nil for any other character, misplaced padding, or a
    /// length that no base64 text can have (4n+1). Allocates the result.
    public static func decode(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        var padding = 0
        while body.hasSuffix("=") && padding < 2 {
            body.removeLast()
            padding += 1
        }
        guard !body.contains("=") else { return nil }
        var standard = ""
        standard.reserveCapacity(body.utf8.count + 3)
        for scalar in body.unicodeScalars {
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", "+", "/": standard.unicodeScalars.append(scalar)
            case "-": standard.append("+")
            case "_": standard.append("/")
            default: return nil
            }
        }
        let remainder = standard.utf8.count % 4
        if remainder == 1 { return nil }
        if padding > 0 && remainder == 0 { return nil }
        if remainder > 0 && padding > 0 && remainder + padding != 4 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        guard let data = Data(base64Encoded: standard) else { return nil }
        return Array(data)
    }

    /// Encodes `bytes` as standard, padded base64 (`+`, `/`, `=`), the form inside a T1
    /// token. Allocates the result string.
    public static func encodeStandard<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }

    /// Decodes standard base64 (`+`, `/`), tolerating missing `=` padding and accepting
    /// the URL-safe alphabet too. Returns nil on any invalid character. Allocates the result.
    public static func decodeStandard(_ text: String) -> [UInt8]? { decode(text) }
}
