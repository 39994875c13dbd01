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

    /// Plain HTTP on 127.0.0.1, on a port the kernel picks.
    public init() {}
}
