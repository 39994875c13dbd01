import Glibc

/// Why a web server, WebSocket client, HTTP request or TCP relay could not do what was
/// asked, as readable text (which file, which address, which system call).
public struct WebError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for logs and test failures.
    public var message: String

    /// An error carrying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }

    /// An error for a failed system call: `"<what>: <strerror(code)>"`.
    static func system(_ what: String, _ code: Int32) -> WebError {
        WebError("\(what): \(String(cString: strerror(code)))")
    }
}
