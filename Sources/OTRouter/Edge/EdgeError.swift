import OTMedia

/// Why a `MediaEdge` call failed. Per-packet trouble is never thrown: it is counted in
/// `EdgeCounters`.
public enum EdgeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A leg description the edge cannot use; the text says why.
    case invalidDescription(String)
    /// A leg with this id, or with this local ufrag, is already registered.
    case duplicateLeg
    /// The edge holds `MediaEdgeConfiguration.maximumLegs` legs already.
    case tooManyLegs(limit: Int)
    /// No leg with this id is registered.
    case unknownLeg
    /// The leg has no SRTP keys yet (ICE or DTLS not finished) or lost them.
    case notConnected
    /// The leg's ICE consent lapsed (no valid check for `consentTimeout`, RFC 7675): nothing
    /// is sent to it until its peer's next valid check restores consent.
    case consentLapsed
    /// The packet is larger than the edge's buffers (`MediaEdgeConfiguration.maximumPacketBytes`).
    case packetTooLarge(Int)
    /// libsrtp refused to protect the packet.
    case srtp(SRTPError)
    /// A socket or thread call failed.
    case transport(TransportError)
    /// The DTLS certificate or context could not be made.
    case dtls(DTLSError)
    /// A worker thread could not be started (`pthread_create`'s error number).
    case thread(Int32)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .invalidDescription(reason): "invalid edge leg description: \(reason)"
        case .duplicateLeg: "a leg with this id or local ICE ufrag is already registered on the media edge"
        case let .tooManyLegs(limit): "the media edge already holds its limit of \(limit) legs"
        case .unknownLeg: "no such leg on the media edge"
        case .notConnected: "the leg has no SRTP keys yet (ICE or DTLS not finished)"
        case .consentLapsed: "the leg's ICE consent lapsed: nothing is sent to it until its peer checks again"
        case let .packetTooLarge(size): "a \(size)-byte packet does not fit the media edge's buffers"
        case let .srtp(error): "SRTP: \(error)"
        case let .transport(error): "media edge socket: \(error)"
        case let .dtls(error): "media edge DTLS: \(error)"
        case let .thread(code): "could not start a media edge worker thread (error \(code))"
        }
    }
}
