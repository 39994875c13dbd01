/// The outcome of a non-blocking socket call that did not fail: either the kernel took or
/// gave some messages, or it would have had to block (`EAGAIN`) after `count` of them.
///
/// "Would block" is a normal value, not an error, because a non-blocking socket says it
/// all the time; real failures are thrown as `TransportError`.
public enum IOResult: Sendable, Equatable {
    /// `count` messages were sent or received and the call did not block.
    case processed(Int)
    /// The call stopped because it would block; `count` messages were handled before that.
    case wouldBlock(Int)

    /// The number of messages handled, whichever case this is.
    public var count: Int {
        switch self {
        case .processed(let count), .wouldBlock(let count): count
        }
    }
}
