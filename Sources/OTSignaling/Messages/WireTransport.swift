/// One side's ICE and DTLS parameters for a media leg on the router's one-port edge: what an
/// SDP's `a=ice-ufrag`, `a=ice-pwd` and `a=fingerprint` say, and nothing else. The client
/// sends its own in `publish`/`subscribe`; the router answers with its own in the leg. No
/// SRTP key is in here: the keys come from the DTLS handshake on the media port.
/// Cost: three short strings.
public struct WireTransport: Codable, Sendable, Equatable {
    /// The ICE username fragment (4-256 ICE characters, RFC 8839).
    public var iceUfrag: String
    /// The ICE password (22-256 ICE characters).
    public var icePassword: String
    /// The DTLS certificate fingerprint as an SDP writes it: `sha-256 AB:CD:...`.
    public var fingerprint: String

    /// A description with every field given.
    public init(iceUfrag: String, icePassword: String, fingerprint: String) {
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.fingerprint = fingerprint
    }
}
