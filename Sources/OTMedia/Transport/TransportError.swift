import Glibc

/// A failure of a socket or thread call: which call, the `errno` it returned, and the
/// system's text for it. Thrown with typed throws, so throwing it does not allocate a box.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure the transport reports.
    public enum Code: String, Sendable, Equatable {
        /// A system call failed; `errorNumber` and the message say why.
        case systemError
        /// An address string could not be parsed ("host:port", "[v6]:port").
        case invalidAddress
        /// An argument is out of range (batch size, buffer size…).
        case invalidArgument
        /// The socket was closed before or during the call.
        case closed
    }

    /// The kind of failure.
    public let code: Code
    /// `errno` of the failed call, or 0 when no system call failed.
    public let errorNumber: Int32
    /// What failed and why, for a person ("bind 127.0.0.1:5004: Address already in use").
    public let message: String

    /// Creates an error; `errorNumber` is 0 unless a system call failed.
    public init(_ code: Code, _ message: String, errorNumber: Int32 = 0) {
        self.code = code
        self.message = message
        self.errorNumber = errorNumber
    }

    /// A `.systemError` for `call` that failed with `errorNumber`, with strerror's text.
    /// Allocates the message string; only on the failure path.
    static func system(_ call: String, _ errorNumber: Int32) -> TransportError {
        TransportError(.systemError, "\(call): \(String(cString: strerror(errorNumber)))", errorNumber: errorNumber)
    }

    /// "<code>: <message>".
    public var description: String { "\(code.rawValue): \(message)" }
}
