/// What a client learns about the far end of a media leg from signaling (what an SDP
/// answer carries): the address of its media port, its ICE credentials (`a=ice-ufrag`,
/// `a=ice-pwd`) and its DTLS certificate fingerprint (`a=fingerprint`). No SRTP key: those
/// come from the DTLS handshake. Cost: two short strings and a 32-byte fingerprint.
public struct ICEPeer: Sendable, Equatable {
    /// Where checks, DTLS and media go (the router's one media port).
    public let address: SocketAddress
    /// The peer's ICE credentials: checks are signed with its password.
    public let credentials: ICECredentials
    /// The peer's certificate fingerprint; the handshake fails when it presents another.
    public let fingerprint: DTLSFingerprint

    /// A peer from its three parts.
    public init(address: SocketAddress, credentials: ICECredentials, fingerprint: DTLSFingerprint) {
        self.address = address
        self.credentials = credentials
        self.fingerprint = fingerprint
    }
}
