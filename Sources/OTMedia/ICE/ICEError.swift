/// Why the ICE-lite agent refused to register a leg (control-plane errors; per-datagram
/// problems are `ICEDropReason`s, not errors).
public enum ICEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A ufrag or password breaks RFC 8839's grammar or length limits (or a local ufrag is
    /// longer than the agent's 32 bytes).
    case invalidCredentials
    /// Another leg already uses this local ufrag.
    case duplicateUfrag
    /// A leg with this id is already registered.
    case duplicateLeg
    /// The agent holds `maximumLegs` legs already.
    case tooManyLegs(limit: Int)

    /// A sentence saying what was refused.
    public var description: String {
        switch self {
        case .invalidCredentials: "ICE credentials must be ICE characters: a ufrag of 4-256 (a local one at most 32), a password of 22-256"
        case .duplicateUfrag: "another ICE leg already uses this local ufrag"
        case .duplicateLeg: "an ICE leg with this id is already registered"
        case let .tooManyLegs(limit): "the ICE-lite agent already holds its limit of \(limit) legs"
        }
    }
}
