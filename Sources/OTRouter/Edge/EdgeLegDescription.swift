import OTMedia

/// The router's name for a leg on the one-port edge: the same id the ICE agent keys on.
public typealias EdgeLegID = ICELegID

/// What the router knows about a leg when it registers it with a `MediaEdge`: this side's
/// ICE credentials (its `a=ice-ufrag`/`a=ice-pwd`) and, from the peer's description, its
/// ufrag, password and DTLS certificate fingerprint. That is everything signaling carries
/// for media: no SRTP key is in here, the keys come from the DTLS handshake on the port.
/// Cost: four small strings and a 32-byte fingerprint.
public struct EdgeLegDescription: Sendable, Equatable {
    /// This side's credentials: checks must be signed with `local.password`.
    public let local: ICECredentials
    /// The peer's `a=ice-ufrag`: the second half of the USERNAME of its checks.
    public let remoteUfrag: String
    /// The peer's `a=ice-pwd` (an ICE-lite side sends no checks, so it is kept for the
    /// record and for a later full-ICE mode).
    public let remotePassword: String
    /// The peer's `a=fingerprint`: its DTLS certificate must hash to it.
    public let remoteFingerprint: DTLSFingerprint

    /// A description from its parts. Throws `EdgeError.invalidDescription` when the remote
    /// ufrag or password breaks the ICE grammar (RFC 8839: 4–256 / 22–256 ICE characters).
    /// Cost: one pass over each string.
    public init(local: ICECredentials, remoteUfrag: String, remotePassword: String,
                remoteFingerprint: DTLSFingerprint) throws(EdgeError) {
        guard ICECredentials.isValid(remoteUfrag, minimum: 4), ICECredentials.isValid(remotePassword, minimum: 22) else {
            throw .invalidDescription("the remote ICE ufrag or password is not 4/22-256 ICE characters")
        }
        self.local = local
        self.remoteUfrag = remoteUfrag
        self.remotePassword = remotePassword
        self.remoteFingerprint = remoteFingerprint
    }
}
