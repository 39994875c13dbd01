import Dispatch
import OTMedia
import OTSignaling

/// The process's DTLS identity for media legs on a router's one-port edge: ONE ECDSA
/// P-256 certificate (and its `DTLSContext`) per process, made on first use (a swift_once
/// `static let`, so thread-safe), shared by every leg; its fingerprint goes in each
/// request's `transport`. A failure to make it (no working libssl) is kept and reported
/// by every leg that needs it. Cost: one key generation and signature, once.
enum ClientDTLSIdentity {
    static let shared: Result<DTLSContext, DTLSError> = Result { () throws(DTLSError) in
        try DTLSContext(certificate: DTLSCertificate(commonName: "OTKit client"))
    }
}

/// One media leg's side of the edge setup: fresh ICE credentials (per leg) and the
/// process's certificate, announced in the publish/subscribe request as `transport`,
/// then, when the router's leg carries its own `transport`, the ICE checks and DTLS
/// handshake (`ICEClientConnector`) on a new socket, and the consent keeper for the
/// pipeline. Keys never travel in signaling: they come from the handshake.
struct EdgeLegSetup: Sendable {
    /// This leg's ICE credentials.
    let credentials: ICECredentials
    /// The process's DTLS context (certificate).
    let context: DTLSContext
    /// How long ICE + DTLS may take together.
    static let connectTimeout: UInt64 = 10_000_000_000
    /// Where legs connect (a blocking ICE + DTLS exchange each, up to `connectTimeout`):
    /// off every session's serial work queue, several at once.
    static let connectQueue = DispatchQueue(label: "otkit.edge-connect", attributes: .concurrent)

    /// Fresh credentials and the shared certificate; nil when no certificate can be made
    /// (the request then goes without `transport` and the router answers with SDES keys).
    init?() {
        guard case let .success(context) = ClientDTLSIdentity.shared else { return nil }
        credentials = ICECredentials.generate()
        self.context = context
    }

    /// What the request carries: ufrag, password, fingerprint ("sha-256 AB:CD:…").
    var wire: WireTransport {
        WireTransport(iceUfrag: credentials.ufrag, icePassword: credentials.password,
                      fingerprint: context.certificate.fingerprint.sdpValue)
    }

    /// A connected leg: its socket (for the pipeline), the handshake's keys and the
    /// consent keeper.
    struct Connected {
        let socket: UDPSocket
        let keys: SRTPLegKeys
        let consent: ICEConsentKeeper
    }

    /// Checks the router's `transport`, binds a socket of `destination`'s family, runs ICE
    /// and DTLS against `destination` (blocking, at most `connectTimeout`), and makes the
    /// consent keeper with `consent` timing (`onConsentLost` and `onConsentRestored` run
    /// on the pipeline's thread, each time consent is lost or comes back). Throws
    /// `MediaError(.networkFailure, …)` — the caller maps it to its WebRTC error (1610 /
    /// 1600) — for a malformed `transport`, a socket that cannot be bound, or a failed ICE
    /// or DTLS step. `bufferBytes` sizes the socket's kernel buffers.
    func connect(to destination: SocketAddress, router: WireTransport, bufferBytes: (receive: Int, send: Int),
                 consent timing: ICEConsentKeeper.Timing, onConsentLost: @escaping @Sendable () -> Void,
                 onConsentRestored: @escaping @Sendable () -> Void) throws(MediaError) -> Connected {
        let peer = try Self.peer(destination, router)
        let socket: UDPSocket
        do {
            socket = try UDPSocket(bindingTo: destination.family == .ipv6 ? .ipv6Any(port: 0) : .ipv4Any(port: 0),
                                   receiveBufferBytes: bufferBytes.receive, sendBufferBytes: bufferBytes.send)
        } catch {
            throw MediaError(.networkFailure, "cannot bind a media socket for the router's edge: \(error)")
        }
        do {
            let keys = try ICEClientConnector(socket: socket, peer: peer, local: credentials, context: context)
                .connect(timeout: Self.connectTimeout)
            return Connected(socket: socket, keys: keys,
                             consent: ICEConsentKeeper(peer: peer, local: credentials, timing: timing, onConsentLost: onConsentLost,
                                                       onConsentRestored: onConsentRestored))
        } catch {
            socket.close()
            throw error
        }
    }

    /// The router's side as the connector needs it; `.networkFailure` naming the bad field.
    static func peer(_ destination: SocketAddress, _ router: WireTransport) throws(MediaError) -> ICEPeer {
        let credentials: ICECredentials
        do { credentials = try ICECredentials(ufrag: router.iceUfrag, password: router.icePassword) } catch {
            throw MediaError(.networkFailure, "the router's ICE ufrag or password is not 4/22-256 ICE characters")
        }
        guard let sdp = try? SDPFingerprint(sdpValue: Substring(router.fingerprint)), sdp.algorithm == DTLSFingerprint.sha256,
              let fingerprint = DTLSFingerprint(sha256: sdp.bytes) else {
            throw MediaError(.networkFailure, "the router's certificate fingerprint is not \"sha-256\" and 32 hex pairs")
        }
        return ICEPeer(address: destination, credentials: credentials, fingerprint: fingerprint)
    }
}
