import Foundation
import OTMedia

/// Options for an `OTSession` (`OTSessionSettings`): an object, as in OpenTok, made with
/// `OTSessionSettings()`, changed through a `let`, and passed (or nil for the defaults)
/// to `OTSession(apiKey:sessionId:delegate:settings:)`. The session takes a copy when it
/// is created, so later changes to this object do not reach it; `OTSession.settings`
/// hands out copies too. Not meant to be changed from two threads at once.
/// Cost: a dozen fields; one copy per session (and per `OTSession.settings` read).
public final class OTSessionSettings: @unchecked Sendable {
    /// Don't deliver `connectionCreated` / `connectionDestroyed` (for large sessions).
    public var connectionEventsSuppressed = false
    /// Where the router is: `http(s)://host:port`. The signaling WebSocket is this URL
    /// with the `ws(s)` scheme and `/v1/session/{sessionId}/ws`. Default: the
    /// `OTKIT_ROUTER_URL` environment variable, else `http://127.0.0.1:4000`.
    public var routerURL: String = OTSessionSettings.defaultRouterURL
    /// Kept for source compatibility with OpenTok; deprecated there and without effect
    /// (since 2.17.0). Use `routerURL`.
    @available(*, deprecated, message: "has no effect; set routerURL")
    public var apiURL: String? {
        get { storedAPIURL }
        set { storedAPIURL = newValue }
    }
    /// Accept a self-signed TLS certificate from a `wss://` router (development only).
    public var allowSelfSignedCertificates = false

    private var storedAPIURL: String?

    /// Rewrites each media leg's (host, port) before the pipelines use it. Tests use it
    /// to route media through an `ImpairmentProxy`. Nil: use the router's address.
    var mediaAddressRewrite: (@Sendable (String, Int) -> (String, Int))?
    /// Relayed sessions: the address a publisher announces for its media socket. Nil:
    /// its address toward the router (`LocalRoute`), else loopback.
    var relayedMediaHost: String?
    /// Seconds between keep-alive pings (the agreed heartbeat: 1 s).
    var heartbeatInterval: Double = 1
    /// Seconds without hearing from the router before the session starts reconnecting (3 s).
    var heartbeatTimeout: Double = 3
    /// Seconds to keep trying to resume when the router did not say (it does, in
    /// `ConnectedReply.reconnectGraceMilliseconds`).
    var reconnectGrace: Double = 30
    /// Seconds between resume attempts while reconnecting.
    var reconnectRetryInterval: Double = 0.5
    /// Seconds between network-stats deliveries to the stats delegates.
    var statsInterval: Double = 1
    /// RFC 7675 consent checks on edge legs: 5 s ± 20 %, consent lost after 30 s without
    /// an answer. Tests shorten them to see a loss and its end without waiting 30 s.
    var consentTiming = ICEConsentKeeper.Timing()
    /// Makes the signaling transport (tests may substitute one).
    var transportFactory: SignalingTransportFactory = WebSocketSignalingTransport.factory

    /// The defaults above.
    public init() {}

    /// A copy with the same values (the session keeps its own).
    func copy() -> OTSessionSettings {
        let other = OTSessionSettings()
        other.connectionEventsSuppressed = connectionEventsSuppressed
        other.routerURL = routerURL
        other.allowSelfSignedCertificates = allowSelfSignedCertificates
        other.storedAPIURL = storedAPIURL
        other.mediaAddressRewrite = mediaAddressRewrite
        other.relayedMediaHost = relayedMediaHost
        other.heartbeatInterval = heartbeatInterval
        other.heartbeatTimeout = heartbeatTimeout
        other.reconnectGrace = reconnectGrace
        other.reconnectRetryInterval = reconnectRetryInterval
        other.statsInterval = statsInterval
        other.transportFactory = transportFactory
        other.consentTiming = consentTiming
        return other
    }

    /// `OTKIT_ROUTER_URL` or `http://127.0.0.1:4000`.
    public static var defaultRouterURL: String {
        ProcessInfo.processInfo.environment["OTKIT_ROUTER_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://127.0.0.1:4000"
    }

    /// The WebSocket URL for `sessionId`, or nil when `routerURL` is not an http(s)/ws(s) URL.
    func webSocketURL(sessionId: String, base: String? = nil) -> String? {
        var base = base ?? routerURL
        while base.hasSuffix("/") { base.removeLast() }
        let scheme: String
        let rest: Substring
        if base.hasPrefix("https://") { scheme = "wss://"; rest = base.dropFirst(8) }
        else if base.hasPrefix("http://") { scheme = "ws://"; rest = base.dropFirst(7) }
        else if base.hasPrefix("wss://") { scheme = "wss://"; rest = base.dropFirst(6) }
        else if base.hasPrefix("ws://") { scheme = "ws://"; rest = base.dropFirst(5) }
        else { return nil }
        guard !rest.isEmpty, !rest.contains(" ") else { return nil }
        let escaped = sessionId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? sessionId
        return scheme + rest + "/v1/session/" + escaped + "/ws"
    }
}
