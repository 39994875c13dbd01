import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Three real routers in this process (listening sockets, the SFU each on its own
/// ports) sharing one real `redis-server`, and OTKit sessions that connect through a
/// chosen one of them.
final class ClusterTrioRouters: Sendable {
    let redis: RedisServer
    let routers: [Router]
    let kit: SessionTestKit

    /// `cascadeSecrets`: each node's cluster secret for media cascades (nil: that node
    /// serves no media for the clients it proxies; they get it from the owner).
    init(project: ProjectCredentials, proxyQueueMessages: Int = 256, cascadeSecrets: [String?] = [nil, nil, nil]) throws {
        kit = SessionTestKit(project: project)
        redis = try RedisServer()
        let endpoint = try RedisEndpoint(url: redis.url())
        var made: [Router] = []
        for index in 0..<3 {
            var configuration = RouterConfiguration()
            configuration.projects = [project]
            configuration.logLevel = .error
            var cluster = ClusterConfiguration(redis: endpoint, nodeId: "node-\(index)")
            cluster.redisTimeoutMilliseconds = 5000
            cluster.proxyQueueMessages = proxyQueueMessages
            configuration.cluster = cluster
            configuration.clusterSecret = cascadeSecrets[index]
            made.append(try Router(configuration: configuration))
        }
        routers = made
    }

    deinit { for router in routers { router.stop() } }

    /// An OTKit session for `sessionId` whose router is node `index`.
    func session(on index: Int, _ sessionId: String, _ recorder: DelegateRecorder) throws -> OTSession {
        try kit.makeSession(routers[index], sessionId, recorder)
    }

    /// Node `index`'s cluster counters (Redis errors, heartbeats, claims).
    func clusterStatistics(_ index: Int) -> ClusterStatistics { routers[index].service.cluster?.statistics ?? ClusterStatistics() }

    /// A session created by `POST /session/create` on node `index` (routed); its id.
    func createSession(on index: Int) throws -> String {
        let answer = try HTTPClient.request("POST", routers[index].baseURL + "/session/create",
                                            headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: kit.project),
                                                      "Content-Type": "application/x-www-form-urlencoded"],
                                            body: Array("p2p.preference=disabled".utf8))
        guard answer.status == 200, let list = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [[String: Any]],
              let id = list.first?["session_id"] as? String else {
            throw RouterError("session create on node \(index) answered \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return id
    }

    /// `POST` (or another method) on node `index`'s REST API with a fresh project JWT.
    func rest(_ method: String, on index: Int, _ path: String, body: String = "", headers: [String: String] = [:]) throws
        -> (status: Int, body: String) {
        var all = ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: kit.project), "Content-Type": "application/json"]
        all.merge(headers) { _, new in new }
        let answer = try HTTPClient.request(method, routers[index].baseURL + path, headers: all, body: Array(body.utf8))
        return (answer.status, String(decoding: answer.body, as: UTF8.self))
    }
}

/// Frames decoded of those sent while watching: distinct stamped numbers over the span
/// from the first to the last one seen.
func decodedShare(_ numbers: [UInt32]) -> Double {
    guard let first = numbers.min(), let last = numbers.max(), last > first else { return 0 }
    return Double(Set(numbers).count) / Double(last - first + 1)
}

/// Polls `condition` every 100 ms for up to `seconds`; true once it holds.
func untilTrue(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(100_000)
    }
    return condition()
}
