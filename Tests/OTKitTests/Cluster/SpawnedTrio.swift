import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// The failover tests' common start: one real redis-server, three `otkit router` processes
/// (`n-0`, `n-1`, `n-2`) all registered and known to n-0's registry, and a session created by
/// REST on n-0 (so n-0 owns it). Clients connect through any node with short heartbeat and
/// retry settings so a dead node is noticed quickly.
final class SpawnedTrio {
    let redis: RedisServer
    /// A connection of the test's own to Redis, to read the registry and claims.
    let check: RedisConnection
    let nodes: [SpawnedRouter]
    let sessionId: String
    let project: ProjectCredentials

    init(project: ProjectCredentials, name: String, drainSeconds: Int = 30, clusterSecret: String? = nil) throws {
        self.project = project
        redis = try RedisServer()
        let url = try redis.url()
        check = RedisConnection(endpoint: try RedisEndpoint(url: url), timeoutMilliseconds: 5000)
        let directory = NSTemporaryDirectory() + "otkit-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        nodes = try (0..<3).map {
            try SpawnedRouter(nodeId: "n-\($0)", redis: url, project: project, directory: directory,
                              drainSeconds: drainSeconds, clusterSecret: clusterSecret)
        }
        let nodes = nodes, check = check
        try #require(untilTrue(60) { Self.registered(check) == ["n-0", "n-1", "n-2"] && nodes.allSatisfy { !$0.url.isEmpty } },
                     "\(nodes.map { $0.output.suffix(800) })")
        // n-0's next heartbeat reads the full registry: connect replies then list all three.
        let beats = nodes[0].metric("otkit_cluster_heartbeats_total") ?? 0
        #expect(untilTrue(30) { (nodes[0].metric("otkit_cluster_heartbeats_total") ?? 0) > beats })
        let created = try HTTPClient.request("POST", nodes[0].url + "/session/create",
                                             headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: project),
                                                       "Content-Type": "application/x-www-form-urlencoded"],
                                             body: Array("p2p.preference=disabled".utf8))
        let list = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [[String: Any]])
        sessionId = try #require(list.first?["session_id"] as? String)
    }

    /// The node ids registered in Redis now, sorted.
    func registered() -> [String] { Self.registered(check) }

    private static func registered(_ check: RedisConnection) -> [String] {
        ((try? check.command("HKEYS", "otkit:nodes").elements) ?? []).compactMap(\.text).sorted()
    }

    /// A session object for the trio's session whose socket goes to node `index`.
    func session(on index: Int, _ recorder: DelegateRecorder) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.routerURL = nodes[index].url
        settings.heartbeatTimeout = 3
        settings.reconnectRetryInterval = 0.2
        let session = try #require(OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        return session
    }
}
