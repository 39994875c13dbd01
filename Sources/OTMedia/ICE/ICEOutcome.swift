/// The caller's name for a leg registered with `ICELiteAgent` (a router leg id, say).
public struct ICELegID: Sendable, Hashable, CustomStringConvertible {
    /// The caller's number.
    public let rawValue: UInt64
    /// Wraps `rawValue`.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// "leg N".
    public var description: String { "leg \(rawValue)" }
}

/// What an answered connectivity check changed.
public enum ICEChange: Sendable, Equatable {
    /// A valid check; the selected address did not change.
    case checked
    /// The first USE-CANDIDATE check: its source is now the leg's selected address.
    case nominated
    /// A USE-CANDIDATE check from a new address: the selected address moved there (NAT
    /// rebinding, a network change) from `from`.
    case moved(from: SocketAddress)
}

/// A check the agent answered: which leg, what changed.
public struct ICEEvent: Sendable, Equatable {
    /// The leg the check was for.
    public let leg: ICELegID
    /// What it changed.
    public let change: ICEChange
    /// True when the check refreshed the consent of a lapsed leg: sending may resume.
    public var consentRestored = false
}

/// Why the agent answered nothing to a datagram. Each is counted in `ICECounters`.
public enum ICEDropReason: Error, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// Not a STUN message this reader accepts (see `STUNError`).
    case malformed
    /// A STUN message that is not a Binding request (responses, indications, other methods).
    case notBindingRequest
    /// No FINGERPRINT, or a wrong one (checked before the HMAC: it is cheaper).
    case badFingerprint
    /// No USERNAME, or one whose "<local>:<remote>" matches no registered leg.
    case unknownUfrag
    /// No MESSAGE-INTEGRITY, or one the leg's password does not verify.
    case badIntegrity
    /// An authenticated request with a comprehension-required attribute this agent does
    /// not know. RFC 8489 would answer 420; a lite server whose peers are browsers and
    /// OTKit (who never send one) drops it instead: nothing to gain, no reflection surface.
    case unknownAttribute
    /// The peer says it is ICE-CONTROLLED (and not controlling): a lite agent is always
    /// controlled, so the full peer must control (RFC 8445 section 6.1.1); dropped, not 487.
    case roleConflict
    /// The caller's response buffer is smaller than `STUNBinding.maximumResponseSize`.
    case responseBufferTooSmall

    /// A short name for logs and counters.
    public var description: String {
        switch self {
        case .malformed: "malformed"
        case .notBindingRequest: "not-binding-request"
        case .badFingerprint: "bad-fingerprint"
        case .unknownUfrag: "unknown-ufrag"
        case .badIntegrity: "bad-integrity"
        case .unknownAttribute: "unknown-attribute"
        case .roleConflict: "role-conflict"
        case .responseBufferTooSmall: "response-buffer-too-small"
        }
    }
}

/// What `ICELiteAgent.handle` did with a datagram.
public enum ICEResult: Sendable, Equatable {
    /// Send the first `byteCount` bytes of the response buffer back to the source.
    case respond(byteCount: Int, ICEEvent)
    /// Send nothing; the reason was counted.
    case drop(ICEDropReason)
}

/// The agent's counters: answers, nominations, moves, consent lapses and restorations, and
/// drops by reason.
public struct ICECounters: Sendable, Equatable {
    /// Checks answered.
    public var responses = 0
    /// First nominations.
    public var nominations = 0
    /// Selected addresses moved by a nomination from elsewhere.
    public var moves = 0
    /// Legs found lapsed by `lapse` (no valid check for the consent timeout); a leg that
    /// lapses twice counts twice.
    public var lapses = 0
    /// Lapsed legs whose consent a valid check restored.
    public var restorations = 0
    /// Drops, indexed like `ICEDropReason.allCases`.
    var dropsByReason = [Int](repeating: 0, count: ICEDropReason.allCases.count)

    /// Datagrams dropped for `reason`.
    public func drops(_ reason: ICEDropReason) -> Int { dropsByReason[Self.index(reason)] }
    /// Datagrams dropped for any reason.
    public var totalDrops: Int { dropsByReason.reduce(0, +) }

    mutating func count(_ reason: ICEDropReason) { dropsByReason[Self.index(reason)] += 1 }

    private static func index(_ reason: ICEDropReason) -> Int {
        switch reason {
        case .malformed: 0
        case .notBindingRequest: 1
        case .badFingerprint: 2
        case .unknownUfrag: 3
        case .badIntegrity: 4
        case .unknownAttribute: 5
        case .roleConflict: 6
        case .responseBufferTooSmall: 7
        }
    }
}
