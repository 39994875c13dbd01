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

    /// Decodes base64url (`-`, `_`); `=` padding is optional. Returns nil for any other
    /// character, misplaced padding, a length no base64 text can have (4n+1), or unused
    /// low bits that are not zero: every byte string has exactly one accepted spelling,
    /// so a signature cannot be re-spelled into a second token that verifies. Allocates
    /// the result.
    public static func decode(_ text: String) -> [UInt8]? { decode(text, urlSafe: true) }

    /// Decodes standard base64 (`+`, `/`, the T1 token form) with the same strictness
    /// as `decode`; `=` padding is optional. Allocates the result.
    public static func decodeStandard(_ text: String) -> [UInt8]? { decode(text, urlSafe: false) }

    private static func decode(_ text: String, urlSafe: Bool) -> [UInt8]? {
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
            case "A"..."Z", "a"..."z", "0"..."9": standard.unicodeScalars.append(scalar)
            case "+" where !urlSafe, "/" where !urlSafe: standard.unicodeScalars.append(scalar)
            case "-" where urlSafe: standard.append("+")
            case "_" where urlSafe: standard.append("/")
            default: return nil
            }
        }
        let remainder = standard.utf8.count % 4
        if remainder == 1 { return nil }
        if padding > 0 && remainder == 0 { return nil }
        if remainder > 0 && padding > 0 && remainder + padding != 4 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        // Foundation ignores non-zero leftover bits ("QR==" decodes like "QQ=="): only the
        // canonical spelling, the one encoding gives back, is accepted.
        guard let data = Data(base64Encoded: standard), data.base64EncodedString() == standard else { return nil }
        return Array(data)
    }

    /// Encodes `bytes` as standard, padded base64 (`+`, `/`, `=`), the form inside a T1
    /// token. Allocates the result string.
    public static func encodeStandard<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }
}
