import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// `otkit router --redis … --node-id …` as spawned processes on loopback with a real
/// `redis-server`: they register with their printed URLs, a REST session is owned by the
/// node that created it, SIGKILL gets a node pruned, SIGTERM removes it at once.
@Suite(.serialized) struct ClusterRouterCommandTests {
    static let project = ProjectCredentials(apiKey: "4455", apiSecret: "cluster-secret-0123456789abcdef0123456789")

    private func router(_ id: String, redis: String, directory: String) throws -> BackgroundProcess {
        try BackgroundProcess(["router", "--port", "0", "--media-port", "0", "--public-ip", "127.0.0.1", "--redis", redis, "--node-id", id],
                              environment: ["OTKIT_API_KEY": Self.project.apiKey, "OTKIT_API_SECRET": Self.project.apiSecret],
                              directory: directory)
    }

    @Test func threeRoutersRegisterPlaceAndArePrunedOrLeave() throws {
        let redis = try RedisServer()
        let directory = try temporaryDirectory("cluster")
        let check = RedisConnection(endpoint: try RedisEndpoint(url: redis.url()), timeoutMilliseconds: 5000)
        let routers = try (0..<3).map { try router("n-\($0)", redis: redis.url(), directory: directory) }
        for (index, process) in routers.enumerated() {
            #expect(poll(60) { process.stdout.contains("cluster: node n-\(index) registered") }, "n-\(index): \(process.stdout) \(process.stderr.suffix(1500))")
        }
        let urls = routers.map { listeningURL($0.stdout) }
        let registered = try check.command("HGETALL", "otkit:nodes").elements ?? []
        var byNode: [String: String] = [:]
        var index = 0
        while index + 1 < registered.count {
            let info = try JSONDecoder().decode(ClusterNodeInfo.self, from: Data((registered[index + 1].text ?? "").utf8))
            byNode[registered[index].text ?? ""] = info.url
            index += 2
        }
        #expect(byNode == ["n-0": urls[0], "n-1": urls[1], "n-2": urls[2]])

        // A session created by REST on n-1 is owned by n-1 and stored for all.
        let response = try HTTPClient.request("POST", urls[1] + "/session/create",
                                              headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project),
                                                        "Content-Type": "application/x-www-form-urlencoded"],
                                              body: Array("p2p.preference=disabled".utf8))
        #expect(response.status == 200)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        let sessionId = try #require(list.first?["session_id"] as? String)
        #expect(try check.command("GET", "otkit:session:\(sessionId):owner").text == "n-1")
        #expect(try check.command("HEXISTS", "otkit:sessions", sessionId) == .integer(1))
        // n-0 does not own it and says who does, over REST.
        let asked = try HTTPClient.request("GET", urls[0] + "/v2/project/\(Self.project.apiKey)/session/\(sessionId)/owner",
                                           headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project)])
        #expect(asked.status == 200)
        let owner = try #require(try JSONSerialization.jsonObject(with: Data(asked.body)) as? [String: Any])
        #expect(owner["nodeId"] as? String == "n-1" && owner["url"] as? String == urls[1])

        // SIGKILL n-2: the others prune it once its heartbeat lapses (3 s by default).
        kill(routers[2].process.processIdentifier, SIGKILL)
        #expect(poll(60) { ((try? check.command("HKEYS", "otkit:nodes").elements) ?? []).compactMap(\.text).sorted() == ["n-0", "n-1"] })

        // SIGTERM n-0: exits 0 and has removed itself on the way out.
        routers[0].terminate()
        #expect(routers[0].waitForExit(30) == 0, "\(routers[0].stderr.suffix(1500))")
        #expect(try check.command("HEXISTS", "otkit:nodes", "n-0") == .integer(0))
        #expect(try check.command("EXISTS", "otkit:node:n-0:alive") == .integer(0))
        routers[1].terminate()
        #expect(routers[1].waitForExit(30) == 0)
        #expect(try check.command("GET", "otkit:session:\(sessionId):owner") == .bulk(nil))  // n-1 released its claim
    }

    @Test(arguments: [
        (["--redis", "redis://127.0.0.1:6379"], "--node-id"),
        (["--node-id", "a"], "--node-id needs --redis"),
        (["--redis", "http://x", "--node-id", "a"], "must start with redis://"),
        (["--redis", "redis://127.0.0.1:6379", "--node-id", "bad id"], "nodeId"),
    ])
    func badClusterArgumentsAreRefused(arguments: [String], message: String) throws {
        let result = try Subprocess.run(OtkitBinary.path, ["router", "--port", "0", "--media-port", "0"] + arguments,
                                        environment: ["OTKIT_API_KEY": Self.project.apiKey, "OTKIT_API_SECRET": Self.project.apiSecret],
                                        timeoutSeconds: 60)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
    }

    @Test func unreachableRedisStopsTheRouterWithAClearError() throws {
        let port = RedisServer.freePort()
        let result = try Subprocess.run(OtkitBinary.path, ["router", "--port", "0", "--media-port", "0", "--redis", "redis://127.0.0.1:\(port)",
                                                           "--node-id", "lonely"],
                                        environment: ["OTKIT_API_KEY": Self.project.apiKey, "OTKIT_API_SECRET": Self.project.apiSecret],
                                        timeoutSeconds: 60)
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("cannot join the cluster at redis://127.0.0.1:\(port)/0"), "\(result)")
    }
}
