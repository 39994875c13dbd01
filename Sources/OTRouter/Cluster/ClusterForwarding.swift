import Foundation
import OTNet
import OTSignaling
import Synchronization

/// What a node of a cluster does for sessions that live at another node: it proxies
/// client signaling sockets to the owner (``SignalingProxy``) and forwards REST calls to
/// it (``ClusterForwarding+REST``), marking both with ``ClusterMarker`` so the owner
/// trusts them and never forwards them again. Marks that do not verify are refused and
/// counted. See docs/scale.md.
final class ClusterForwarding: Sendable {
    let cluster: ClusterNode
    let marker: ClusterMarker
    let log: RouterLog
    private let proxies = Mutex<[UInt64: SignalingProxy]>([:])
    let counters = Mutex(ClusterForwardingStatistics())
    private let openQueue = DispatchQueue(label: "otkit.cluster.proxy", attributes: .concurrent)
    private let closeQueue = DispatchQueue(label: "otkit.cluster.proxy.close", attributes: .concurrent)

    /// The router proxied clients' subscriber legs open on, nil when this node serves no
    /// media for them (no `MediaRouter`, or no cascade secret: the owner serves it all).
    let media: MediaRouter?
    private let cascadeSecret: String

    /// Forwarding for `cluster`; `media` and `cascadeSecret` (the cluster secret of
    /// `POST /cluster/v1/cascade`) let proxied clients' native subscribers get their
    /// media on this node, by cascade from the owner (both needed, else the owner serves it).
    init(cluster: ClusterNode, projects: [(apiKey: String, secret: String)], log: RouterLog, media: MediaRouter? = nil,
         cascadeSecret: String? = nil) {
        self.cluster = cluster
        marker = ClusterMarker(secret: cluster.configuration.secret, projects: projects)
        self.log = log
        let secret = cascadeSecret ?? ""
        self.media = secret.isEmpty ? nil : media
        self.cascadeSecret = secret
    }

    /// What forwarding has done so far. Cost: the mutex.
    var statistics: ClusterForwardingStatistics {
        var result = counters.withLock { $0 }
        result.activeProxies = proxies.withLock { $0.count }
        return result
    }

    // MARK: - Sockets

    /// Takes `client` over (its token verified here; `connectText` its `connect`): finds
    /// the owner's URL and opens a socket there, off the caller's thread. Messages the
    /// client sends meanwhile wait in the proxy's queue.
    /// `resuming`: the `connect` resumes a connection (an owner that cannot be reached
    /// then answers 1022 and is checked for death, ``ownerUnreachable(_:owner:_:)``).
    func proxy(_ client: any WebSocketPeer, sessionId: String, owner: String, connectText: String, connectRequestId: Int,
               resuming: Bool = false) {
        let served = media.map { router in
            ProxiedMedia(router: router, node: cluster.nodeId, secret: cascadeSecret) { [weak self] success in
                self?.counters.withLock { success ? ($0.cascadedSubscribers += 1) : ($0.cascadeFailures += 1) }
                if !success { self?.log.log(.warning, "cluster.cascadeFailed", session: sessionId, ["remote": client.remoteAddress]) }
            }
        }
        let proxy = SignalingProxy(client: client, sessionId: sessionId, limit: cluster.configuration.proxyQueueMessages,
                                   connectRequestId: connectRequestId, resuming: resuming, media: served)
        proxies.withLock { $0[client.id] = proxy }
        _ = proxy.forward(connectText)
        counters.withLock { $0.proxiedSockets += 1 }
        openQueue.async { [self] in openUpstream(proxy, owner: owner) }
    }

    private func openUpstream(_ proxy: SignalingProxy, owner: String) {
        let client = proxy.client
        let found: ClusterSessionOwner?
        do throws(RedisError) { found = try cluster.owner(ofSession: proxy.sessionId) } catch {
            return fail(proxy, "the cluster's Redis does not answer: \(error.description)")
        }
        guard let found, found.nodeId != cluster.nodeId, let node = found.node,
              var url = Self.signalingURL(base: node.url, sessionId: proxy.sessionId) else {
            return ownerUnreachable(proxy, owner: found?.nodeId,
                                    "the node owning session \(proxy.sessionId) (\(found?.nodeId ?? owner)) is not reachable; try again")
        }
        proxy.media?.setOrigin(node.url)
        let query = marker.socketArguments(via: cluster.nodeId, client: client.remoteAddress, sessionId: proxy.sessionId)
        url += "?" + query.map { "\($0.0)=\(Self.escape($0.1))" }.joined(separator: "&")
        let upstream: WebSocketClient
        do throws(WebError) {
            upstream = try WebSocketClient(url: url, onOpen: {}, onText: { [weak self, weak proxy] text in
                guard let self, let proxy else { return }
                proxy.fromOwner(text) { [weak self, weak proxy] in
                    guard let self, let proxy else { return }
                    self.end(proxy, code: 1008, reason: "slow consumer")
                }
            }, onClose: { [weak self, weak proxy] failure in
                guard let self, let proxy else { return }
                if let failure, !proxy.heardFromOwner {  // the owner never answered the connect: say so to the client
                    return self.ownerUnreachable(proxy, owner: found.nodeId,
                                                 "cannot reach the node owning session \(proxy.sessionId) (\(found.nodeId)): \(failure)")
                }
                if let failure { self.log.log(.warning, "cluster.proxyLost", session: proxy.sessionId, ["owner": found.nodeId, "error": failure]) }
                self.end(proxy, code: failure == nil ? 1000 : 1011, reason: failure == nil ? "closed by the session's node" : "the session's node is unreachable")
            })
        } catch {
            return ownerUnreachable(proxy, owner: found.nodeId, "cannot reach the node owning session \(proxy.sessionId): \(error.message)")
        }
        if !proxy.attach(upstream) { closeQueue.async { upstream.close() } }
        log.log(.debug, "cluster.proxied", session: proxy.sessionId, ["owner": found.nodeId, "remote": client.remoteAddress])
    }

    /// The owner could not be reached for a client coming back (a resume): if it is dead
    /// (its `alive` key or its claim lapsed), this node takes the session over
    /// (``ClusterNode/takeOver(_:from:)``), so the client's next try, through any node,
    /// lands at a live owner; the client hears 1022 and tries again within its grace. A
    /// new client hears 1010 as before. Bounded by the client's grace and retry interval:
    /// one Redis round trip per failed resume.
    private func ownerUnreachable(_ proxy: SignalingProxy, owner: String?, _ message: String) {
        if proxy.resuming {
            do throws(RedisError) {
                let now = try cluster.takeOver(proxy.sessionId, from: owner)
                log.log(.info, "cluster.ownerUnreachable", session: proxy.sessionId, ["owner": owner ?? "", "ownerNow": now ?? owner ?? ""])
            } catch {
                log.log(.warning, "cluster.redisError", session: proxy.sessionId, ["doing": "take over", "error": error.description])
            }
        }
        fail(proxy, message)
    }

    private func fail(_ proxy: SignalingProxy, _ message: String) {
        counters.withLock { $0.proxyFailures += 1 }
        log.log(.warning, "cluster.proxyFailed", session: proxy.sessionId, ["error": message])
        let code = proxy.resuming ? 1022 : 1010  // a resumer tries again (the owner may be taken over by then)
        proxy.client.send(SignalingCodec.encode(.error(ErrorReply(code: code, message: message)), requestId: proxy.connectRequestId))
        end(proxy, code: 1011, reason: "session's node unreachable")
    }

    /// Ends a proxy: closes the client's socket with `code` and the owner's.
    private func end(_ proxy: SignalingProxy, code: UInt16, reason: String) {
        _ = proxies.withLock { $0.removeValue(forKey: proxy.client.id) }
        let upstream = proxy.shut()
        proxy.client.close(code: code, reason: reason)
        if let upstream { closeQueue.async { upstream.close() } }
    }

    /// A message from a client socket: true when the socket is proxied (the message went to
    /// the owner, or the client was closed for overflowing its queue).
    func received(_ peer: any WebSocketPeer, text: String) -> Bool {
        guard let proxy = proxies.withLock({ $0[peer.id] }) else { return false }
        if !proxy.forward(text) {
            counters.withLock { $0.proxyOverflows += 1 }
            log.log(.warning, "cluster.proxyOverflow", session: proxy.sessionId, ["remote": peer.remoteAddress])
            proxy.client.send(SignalingCodec.encode(.error(ErrorReply(code: 1011, message: "more than \(cluster.configuration.proxyQueueMessages) messages waiting for the session's node: closing this connection")), requestId: nil))
            end(proxy, code: 1008, reason: "proxy queue full")
        }
        return true
    }

    /// A client socket closed: true when it was proxied (the owner's socket closes too, and
    /// the owner keeps the connection for its reconnection grace).
    func closed(_ peer: any WebSocketPeer) -> Bool {
        guard let proxy = proxies.withLock({ $0.removeValue(forKey: peer.id) }) else { return false }
        if let upstream = proxy.shut() { closeQueue.async { upstream.close() } }
        return true
    }

    /// Closes every proxied socket (the router is stopping).
    func stop() {
        let all = proxies.withLock { table -> [SignalingProxy] in
            defer { table.removeAll() }
            return Array(table.values)
        }
        for proxy in all { end(proxy, code: 1001, reason: "router stopping") }
    }

    /// Tells every proxied client to move to one of `nodes` (the router is draining).
    /// Returns how many were told.
    @discardableResult func moveAll(nodes: [String]) -> Int {
        let all = proxies.withLock { Array($0.values) }
        let text = SignalingCodec.encode(.move(MoveEvent(nodes: nodes, reason: "draining")))
        for proxy in all { proxy.client.send(text) }
        return all.count
    }

    /// Counts a mark that did not verify.
    func forged(_ what: String, remote: String) {
        counters.withLock { $0.forgedMarks += 1 }
        log.log(.warning, "cluster.forgedMark", ["what": what, "remote": remote])
    }

    // MARK: - Text

    /// `ws(s)://host:port/v1/session/{id}/ws` for a node's base URL.
    static func signalingURL(base: String, sessionId: String) -> String? {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasPrefix("https://") { base = "wss://" + base.dropFirst(8) }
        else if base.hasPrefix("http://") { base = "ws://" + base.dropFirst(7) }
        else { return nil }
        guard let id = sessionId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#")))
        else { return nil }
        return "\(base)/v1/session/\(id)/ws"
    }

    static func escape(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }
}

/// What a node's forwarding to other nodes has done (counters only grow, except the gauge).
public struct ClusterForwardingStatistics: Sendable, Equatable {
    /// Client sockets proxied to another node since start.
    public var proxiedSockets: UInt64 = 0
    /// Proxied sockets open now (a gauge).
    public var activeProxies = 0
    /// Proxies that could not reach the owner (Redis away, owner gone, connect failed).
    public var proxyFailures: UInt64 = 0
    /// Proxied clients closed because their queue toward the owner was full.
    public var proxyOverflows: UInt64 = 0
    /// REST calls forwarded to the session's owner.
    public var restForwarded: UInt64 = 0
    /// REST calls answered 503 because the owner could not be reached.
    public var restOwnerUnreachable: UInt64 = 0
    /// Sockets and REST calls refused for a cluster mark that did not verify.
    public var forgedMarks: UInt64 = 0
    /// Subscriber legs this node opened for proxied clients (their media by cascade from
    /// the owner instead of from the owner itself).
    public var cascadedSubscribers: UInt64 = 0
    /// Proxied clients' subscribes answered 1604 because this node could not receive the
    /// stream from the owner (cascade control refused or unreachable, ICE/DTLS failed).
    public var cascadeFailures: UInt64 = 0

    /// All zero.
    public init() {}
}
