import Foundation

/// How an HTTP/1.1 request says where its body ends (RFC 9112 §6), judged before a byte of
/// the body is read. The server reads bodies by `Content-Length` only (chunked request
/// bodies are not decoded: no OpenTok client sends them), so anything it could misread —
/// both `Content-Length` and `Transfer-Encoding` (request smuggling, §6.3), a repeated or
/// non-numeric length (repeated headers arrive joined with commas), a transfer-coding
/// other than `chunked` — is refused with the connection closed, so the bytes behind it
/// are never taken for a second request. Cost: a scan of two header values.
enum RequestFraming: Equatable {
    /// No body.
    case none
    /// A body of exactly this many bytes (at most the server's limit).
    case body(Int)
    /// A well-formed length above the server's limit (answered 413 after the body is discarded).
    case tooLarge(Int)
    /// Answer with this status and message, then close the connection.
    case refuse(status: Int, message: String)

    /// Judges the raw `Content-Length` and `Transfer-Encoding` values (nil when absent;
    /// repeats joined with `,`). `maximumBody` is the largest body accepted.
    static func judge(contentLength: String?, transferEncoding: String?, maximumBody: Int) -> RequestFraming {
        if let transferEncoding {
            if contentLength != nil {
                return .refuse(status: 400, message: "both Content-Length and Transfer-Encoding")
            }
            let coding = transferEncoding.trimmingCharacters(in: .whitespaces).lowercased()
            // Chunked bodies are not decoded: ask for a length rather than misread one.
            if coding == "chunked" { return .refuse(status: 411, message: "Content-Length required") }
            return .refuse(status: 400, message: "unsupported Transfer-Encoding")
        }
        guard let contentLength else { return .none }
        let digits = contentLength.trimmingCharacters(in: .whitespaces)
        // Digits only: no sign, no comma (a repeated header), and few enough to fit an Int.
        guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let length = Int(digits) else {
            return .refuse(status: 400, message: "bad Content-Length")
        }
        if length == 0 { return .none }
        return length > maximumBody ? .tooLarge(length) : .body(length)
    }
}
