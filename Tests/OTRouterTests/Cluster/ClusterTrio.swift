import Foundation
import OTNet
@testable import OTRouter
@testable import OTSignaling
import OTTestSupport
import Synchronization
import Testing

/// Three router services in one process sharing one real `redis-server` (a fake media
/// plane each: placement is signaling work), joined to the cluster as `Router` does, and
/// a Redis connection of the test's own to check what is stored.
final class ClusterTrio: Sendable {
    let redis: RedisServer
    let services: [RouterService]
    let keys = ClusterKeys(prefix: "otkit:")
    let check: RedisConnection
    private let requests = Atomic(0)

    /// Timings in ms; the defaults are the router's own (robust on a loaded machine).
    init(heartbeat: Int = 1000, nodeTTL: Int = 3000, claimTTL: Int = 5000) throws {
        redis = try RedisServer()
        let endpoint = try RedisEndpoint(url: redis.url())
        check = RedisConnection(endpoint: endpoint, timeoutMilliseconds: 5000)
        var made: [RouterService] = []
        for index in 0..<3 {
            var configuration = Fixture.configuration()
            var cluster = ClusterConfiguration(redis: endpoint, nodeId: "node-\(index)")
            cluster.heartbeatMilliseconds = heartbeat
            cluster.nodeTTLMilliseconds = nodeTTL
            cluster.claimTTLMilliseconds = claimTTL
            cluster.redisTimeoutMilliseconds = 5000
            configuration.cluster = cluster
            let service = RouterService(configuration: configuration, media: FakeMedia())
            try service.startCluster(url: "http://127.0.0.1:\(9100 + index)", mediaPort: nil)
            made.append(service)
        }
        services = made
    }

    deinit { for service in services { service.stop() } }

    func cluster(_ index: Int) -> ClusterNode { services[index].cluster! }

    /// `POST /session/create` on node `index`; the new session id.
    func createSession(on index: Int, relayed: Bool = false) throws -> String {
        let response = services[index].handle(HTTPRequest(method: "POST", path: "/session/create",
                                                          headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project),
                                                                    "content-type": "application/x-www-form-urlencoded"],
                                                          body: Array("p2p.preference=\(relayed ? "enabled" : "disabled")".utf8)))
        guard response.status == 200,
              let list = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]],
              let id = list.first?["session_id"] as? String else {
            throw RouterError("session create on node \(index) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return id
    }

    /// What became of a client's connect on a node.
    enum Placement: Equatable { case servedHere, proxied, refused }

    /// Connects a client to `sessionId` on node `index` and waits (up to 20 s) for the
    /// outcome: served by this node (it owns the session), proxied toward the owner (whose
    /// URL here has nothing listening, so the proxy answers that the owner is unreachable),
    /// or refused.
    @discardableResult
    func connect(on index: Int, to sessionId: String) -> Placement {
        let peer = FakePeer()
        services[index].webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
        guard let token = try? OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project, role: .publisher, connectionData: nil)
        else { return .refused }
        let requestId = requests.add(1, ordering: .relaxed).newValue
        services[index].webSocketReceived(peer, text: SignalingCodec.encode(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)),
                                                                             requestId: requestId))
        _ = eventually(timeout: 20) { peer.reply(to: requestId) != nil }
        switch peer.reply(to: requestId) {
        case .connected?: return .servedHere
        case .error(let error)? where error.code == 1010 && error.message.contains("node owning session"): return .proxied
        default: return .refused
        }
    }

    /// Connects a client to `sessionId` on node `index` and returns the node's reply to the
    /// connect (nil if none came within 20 s) and whether the node closed the socket.
    func connectReply(on index: Int, to sessionId: String) -> (reply: ServerMessage?, closed: Bool) {
        let peer = FakePeer()
        services[index].webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
        guard let token = try? OpenTokToken.generate(sessionID: sessionId, credentials: Fixture.project, role: .publisher, connectionData: nil)
        else { return (nil, false) }
        let requestId = requests.add(1, ordering: .relaxed).newValue
        services[index].webSocketReceived(peer, text: SignalingCodec.encode(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)),
                                                                             requestId: requestId))
        _ = eventually(timeout: 20) { peer.reply(to: requestId) != nil }
        _ = eventually(timeout: 5) { peer.isClosed }
        return (peer.reply(to: requestId), peer.isClosed)
    }

    /// A REST call with a fresh project JWT on node `index` (in process, no socket).
    func rest(_ method: String, on index: Int, _ path: String, body: String = "") -> HTTPResponse {
        services[index].handle(HTTPRequest(method: method, path: path,
                                           headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project),
                                                     "content-type": "application/json"],
                                           body: Array(body.utf8)))
    }

    /// The owner of `sessionId` in Redis (the claim's value), nil if none.
    func ownerInRedis(_ sessionId: String) throws -> String? {
        try check.command("GET", keys.owner(sessionId)).text
    }

    /// The node ids in the registry.
    func registeredNodes() throws -> [String] {
        (try check.command("HKEYS", keys.nodes).elements ?? []).compactMap(\.text).sorted()
    }

    /// Whether node `index`'s hub holds `sessionId`.
    func holds(_ index: Int, _ sessionId: String) -> Bool {
        services[index].hub.perform { services[index].hub.sessions[sessionId] != nil }
    }
}
