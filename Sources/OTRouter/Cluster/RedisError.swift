/// A Redis command that did not get a reply: the server could not be reached, the
/// connection broke or timed out, the reply was malformed, or the server answered with
/// an error. `description` says which and what to check.
public struct RedisError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: String, Sendable {
        /// The TCP connection could not be opened (or the database not selected).
        case connect
        /// The connection broke, or a send or receive took longer than the timeout.
        case io
        /// The server sent bytes that are not a valid reply within the limits.
        case proto
        /// The server answered `-ERR …` (the connection stays usable).
        case server
        /// The reply was valid RESP but not the shape the command returns.
        case unexpected
    }
    /// What kind of failure.
    public var kind: Kind
    /// The details, e.g. `redis://127.0.0.1:6379/0: Connection refused`.
    public var description: String

    /// An error of `kind` saying `description`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
