/// Which end of the DTLS handshake a transport plays (RFC 5763 section 5).
public enum DTLSRole: Sendable, Hashable, CustomStringConvertible {
    /// Waits for the ClientHello: the `a=setup:passive` side. The router is always this.
    case server
    /// Sends the ClientHello: the `a=setup:active` side (browsers answering, native clients).
    case client

    /// The SDP `a=setup` value of this role in an answer ("passive" or "active").
    public var sdpSetup: String { self == .server ? "passive" : "active" }

    /// "server" or "client".
    public var description: String { self == .server ? "server" : "client" }
}
