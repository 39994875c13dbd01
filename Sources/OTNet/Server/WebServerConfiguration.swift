/// Where a `WebServer` listens and whether it speaks TLS.
public struct WebServerConfiguration: Sendable {
    /// The address to listen on: an IPv4 or IPv6 literal; "0.0.0.0" (or "") listens on
    /// every IPv4 interface.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 lets the kernel pick one (read it back from `WebServer.port`).
    public var port: Int = 0
    /// A PEM certificate (chain) file; with `tlsPrivateKeyPath` the server speaks only
    /// HTTPS and WSS.
    public var tlsCertificatePath: String? = nil
    /// The PEM private key of `tlsCertificatePath`.
    public var tlsPrivateKeyPath: String? = nil
    /// The largest WebSocket message (all its fragments) accepted; a bigger one closes the
    /// connection with 1009. The router keeps the default (its signaling messages are small).
    public var maximumMessageBytes: Int = 256 << 10

    // Exposure limits: what an unauthenticated client may hold.
    /// A WebSocket the application has not vouched for (``WebSocketPeer/markAuthenticated()``)
    /// is dropped this many seconds after it opened, whatever it sends (pings included);
    /// nil: never. Whole seconds, at least 1.
    public var unauthenticatedDeadlineSeconds: Int? = nil
    /// At most this many WebSockets may be open and unauthenticated at once; a new one
    /// past the cap closes the oldest (a prompt client always gets in). Never more than half the descriptors the
    /// server may use (soft `RLIMIT_NOFILE` minus ``descriptorReserve``). nil: no cap.
    public var maxUnauthenticatedWebSockets: Int? = nil
    /// Descriptors kept free for the rest of the process: a connection accepted on a
    /// descriptor number within this many of the soft `RLIMIT_NOFILE` is closed at once, so
    /// the server never runs the process into EMFILE itself.
    public var descriptorReserve: Int = 64

    /// Plain HTTP on 127.0.0.1, on a port the kernel picks.
    public init() {}
}
