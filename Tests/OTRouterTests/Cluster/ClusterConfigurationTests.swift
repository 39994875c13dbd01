import Foundation
@testable import OTRouter
import Testing

/// The cluster keys of the configuration file: read when valid, refused by field name when not.
struct ClusterConfigurationTests {
    private func load(_ json: String) throws(RouterConfigurationError) -> RouterConfiguration {
        let path = NSTemporaryDirectory() + "otkit-cluster-\(UUID().uuidString).json"
        try? json.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try RouterConfiguration.load(file: path, environment: ["OTKIT_API_KEY": "1", "OTKIT_API_SECRET": "a"])
    }

    @Test func clusterKeysAreRead() throws {
        let configuration = try load(#"{"redis": "redis://10.1.2.3:7000/2", "nodeId": "edge-1", "clusterHeartbeatMilliseconds": 500, "clusterNodeTTLMilliseconds": 1500, "clusterClaimTTLMilliseconds": 2500}"#)
        let cluster = try #require(configuration.cluster)
        #expect(cluster.redis == RedisEndpoint(host: "10.1.2.3", port: 7000, database: 2))
        #expect(cluster.nodeId == "edge-1")
        #expect(cluster.heartbeatMilliseconds == 500 && cluster.nodeTTLMilliseconds == 1500 && cluster.claimTTLMilliseconds == 2500)
        #expect(try load("{}").cluster == nil)  // alone unless told otherwise
    }

    @Test(arguments: [
        (#"{"nodeId": "a"}"#, "redis"),
        (#"{"redis": "redis://h:0", "nodeId": "a"}"#, "redis"),
        (#"{"redis": "redis://h:1"}"#, "nodeId"),
        (#"{"redis": "redis://h:1", "nodeId": "a/b"}"#, "nodeId"),
        (#"{"redis": "redis://h:1", "nodeId": "a", "clusterHeartbeatMilliseconds": 10}"#, "clusterHeartbeatMilliseconds"),
        (#"{"redis": "redis://h:1", "nodeId": "a", "clusterNodeTTLMilliseconds": 1500}"#, "clusterNodeTTLMilliseconds"),
        (#"{"redis": "redis://h:1", "nodeId": "a", "clusterClaimTTLMilliseconds": 1000}"#, "clusterClaimTTLMilliseconds"),
    ])
    func badClusterKeysAreRefusedByName(json: String, field: String) {
        do {
            _ = try load(json)
            Issue.record("\(json) was accepted")
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }
}

/// The owner endpoint on a router without a cluster says so (501) instead of guessing.
struct ClusterOwnerEndpointAloneTests {
    @Test func aRouterAloneAnswers501() throws {
        let h = try Harness()
        let response = h.http("GET", "\(h.projectPath)/session/\(h.sessionId)/owner")
        #expect(response.status == 501)
        #expect(response.text.contains("runs alone"))
    }
}
