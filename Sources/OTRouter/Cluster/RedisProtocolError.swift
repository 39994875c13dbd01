/// Why bytes from a Redis server are not a valid reply: the stream is out of step and
/// the connection must be closed. `description` names the fault and the offset.
public struct RedisProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `bulk length 99999999 is past the limit 1048576`.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
