import Foundation
import OTNet
@testable import OTRouter
@testable import OTSignaling
import OTTestSupport
import Synchronization
import Testing

/// Session placement across three routers sharing one Redis: every session has exactly
/// one owner, the same in Redis and in each router's own state, however the creates and
/// connects interleave.
@Suite(.serialized) struct ClusterPlacementTests {
    /// Checks that `sessions` each have one owner: Redis' claim, each node's belief and
    /// the owners' own sets agree. Returns the owners (session → node index).
    private func expectOneOwner(_ trio: ClusterTrio, _ sessions: [String]) throws -> [String: Int] {
        var owners: [String: Int] = [:]
        let owned = (0..<3).map { trio.cluster($0).ownedSessions }
        for id in sessions {
            let inRedis = try trio.ownerInRedis(id)
            let holders = (0..<3).filter { owned[$0].contains(id) }
            #expect(holders.count == 1, "\(id) is owned by nodes \(holders)")
            #expect(inRedis == holders.first.map { "node-\($0)" }, "\(id): Redis says \(inRedis ?? "nobody"), the nodes \(holders)")
            for index in 0..<3 {
                #expect(trio.cluster(index).believedOwner(of: id) == inRedis, "node \(index) believes \(trio.cluster(index).believedOwner(of: id) ?? "nobody") owns \(id)")
            }
            owners[id] = holders.first
        }
        return owners
    }

    @Test func fiftyConcurrentCreatesAndConnectsHaveOneOwnerEach() throws {
        let trio = try ClusterTrio()
        // 50 REST creates spread over the three nodes at once, then each session connected
        // on all three nodes at once.
        let created = Mutex<[Int: String]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            do {
                let id = try trio.createSession(on: index % 3)
                created.withLock { $0[index] = id }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let sessions = created.withLock { $0 }
        #expect(sessions.count == 50)
        let served = Atomic(0), proxied = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 150) { job in
            switch trio.connect(on: job % 3, to: sessions[job / 3]!) {
            case .servedHere: served.add(1, ordering: .relaxed)
            case .proxied: proxied.add(1, ordering: .relaxed)
            case .refused: break
            }
        }
        // Each session's owner serves its client; the two other nodes proxy theirs to it.
        #expect(served.load(ordering: .relaxed) == 50 && proxied.load(ordering: .relaxed) == 100)
        let ids = Array(sessions.values)
        #expect(eventually(timeout: 60) { ids.allSatisfy { id in (0..<3).allSatisfy { trio.cluster($0).believedOwner(of: id) != nil } } })
        let owners = try expectOneOwner(trio, ids)
        // The creator saw each session first: it owns it.
        for (index, id) in sessions { #expect(owners[id] == index % 3, "\(id) created on node \(index % 3) is owned by \(owners[id] ?? -1)") }
        for index in 0..<3 { for id in ids { #expect(trio.holds(index, id) == (owners[id] == index)) } }
        let won = (0..<3).reduce(UInt64(0)) { $0 + trio.cluster($1).statistics.claimsWon }
        let lost = (0..<3).reduce(UInt64(0)) { $0 + trio.cluster($1).statistics.claimsLost }
        print("placement: 50 REST sessions, 150 connects: claims won \(won), lost \(lost)")
        #expect(won == 50)
        #expect(lost == 100)
        // The same counts on /metrics.
        let texts = (0..<3).map { PrometheusText.render(trio.services[$0].metrics) }
        let ownedOnMetrics = texts.compactMap { text in
            text.split(separator: "\n").first { $0.hasPrefix("otkit_cluster_owned_sessions ") }.flatMap { Int($0.split(separator: " ")[1]) }
        }
        #expect(ownedOnMetrics == [17, 17, 16])
        #expect(texts.allSatisfy { $0.contains("otkit_cluster_claims_total{outcome=\"won\"}") })
    }

    @Test func concurrentFirstSightingsOnThreeNodesAgree() throws {
        let trio = try ClusterTrio()
        // Sessions minted elsewhere (valid ids no node has seen): the three nodes see each
        // one at the same moment, so all three race for the claim.
        let ids = try (0..<50).map { _ in try OpenTokSessionID.create(apiKey: Fixture.project.apiKey).rawValue }
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let served = Atomic(0), proxied = Atomic(0)
        let ready = DispatchSemaphore(value: 0)
        for node in 0..<3 {
            group.enter()
            // Threads of their own (a global queue may start a third worker only later).
            Thread.detachNewThread {
                defer { group.leave() }
                ready.signal()
                start.wait()
                // Each node walks the list from its own starting point, so all three keep
                // reaching sessions the others are claiming at that moment.
                for step in 0..<ids.count {
                    switch trio.connect(on: node, to: ids[(step + node * 17) % ids.count]) {
                    case .servedHere: served.add(1, ordering: .relaxed)
                    case .proxied: proxied.add(1, ordering: .relaxed)
                    case .refused: break
                    }
                }
            }
        }
        for _ in 0..<3 { ready.wait() }
        for _ in 0..<3 { start.signal() }
        group.wait()
        #expect(served.load(ordering: .relaxed) == 50 && proxied.load(ordering: .relaxed) == 100)
        #expect(eventually(timeout: 60) { ids.allSatisfy { id in (0..<3).allSatisfy { trio.cluster($0).believedOwner(of: id) != nil } } })
        let owners = try expectOneOwner(trio, ids)
        let spread = (0..<3).map { node in owners.values.filter { $0 == node }.count }
        print("placement: 50 sessions seen by three nodes at once: owners per node \(spread); claims won \((0..<3).map { trio.cluster($0).statistics.claimsWon }), lost \((0..<3).map { trio.cluster($0).statistics.claimsLost })")
        #expect(spread.reduce(0, +) == 50)
        #expect((0..<3).reduce(UInt64(0)) { $0 + trio.cluster($1).statistics.claimsWon } == 50)
        #expect((0..<3).reduce(UInt64(0)) { $0 + trio.cluster($1).statistics.claimsLost } == 100)
    }

    @Test func restSessionsAreKnownToAllAndOwnersCanBeAsked() throws {
        let trio = try ClusterTrio()
        let id = try trio.createSession(on: 0, relayed: true)
        // Stored in Redis, and pushed to the other nodes over pub/sub.
        let stored = try #require(try trio.cluster(2).storedSession(id))
        #expect(stored.relayed)
        #expect(stored.createdBy == "node-0")
        #expect(stored.apiKey == Fixture.project.apiKey)
        #expect(eventually(timeout: 30) { trio.cluster(1).knownSession(id) != nil && trio.cluster(2).knownSession(id) != nil })
        #expect(trio.cluster(1).knownSession(id) == stored)
        // A client connecting on node 2 is proxied to the owner (which has the session as
        // created, relayed); node 2 keeps no copy of the session.
        #expect(trio.connect(on: 2, to: id) == .proxied)
        #expect(trio.services[2].hub.perform { trio.services[2].hub.sessions[id] } == nil)
        #expect(trio.services[0].hub.perform { trio.services[0].hub.sessions[id]?.relayed } == true)
        // Node 1 does not own it and can say who does, with where to reach it.
        #expect(!trio.cluster(1).ownedSessions.contains(id))
        let owner = try #require(try trio.cluster(1).owner(ofSession: id))
        #expect(owner.nodeId == "node-0")
        #expect(owner.node?.url == "http://127.0.0.1:9100")
        #expect(try trio.cluster(1).owner(ofSession: "1_nobody") == nil)
        // The same over REST, on a node that does not own it.
        let asked = trio.services[1].handle(HTTPRequest(method: "GET", path: "/v2/project/\(Fixture.project.apiKey)/session/\(id)/owner",
                                                        headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project)]))
        #expect(asked.status == 200)
        let body = try #require((try? JSONSerialization.jsonObject(with: Data(asked.body))) as? [String: Any])
        #expect(body["nodeId"] as? String == "node-0")
        #expect(body["url"] as? String == "http://127.0.0.1:9100")
        let unclaimed = try OpenTokSessionID.create(apiKey: Fixture.project.apiKey).rawValue
        let nobody = trio.services[1].handle(HTTPRequest(method: "GET", path: "/v2/project/\(Fixture.project.apiKey)/session/\(unclaimed)/owner",
                                                         headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project)]))
        #expect(nobody.status == 404)
        let otherProject = trio.services[1].handle(HTTPRequest(method: "GET", path: "/v2/project/\(Fixture.other.apiKey)/session/\(id)/owner",
                                                               headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.other)]))
        #expect(otherProject.status == 404)
        // A node started later loads the records already stored.
        var configuration = Fixture.configuration()
        configuration.cluster = ClusterConfiguration(redis: try RedisEndpoint(url: trio.redis.url()), nodeId: "late")
        let late = RouterService(configuration: configuration, media: FakeMedia())
        defer { late.stop() }
        try late.startCluster(url: "http://127.0.0.1:9199", mediaPort: nil)
        #expect(late.cluster?.knownSession(id) == stored)
    }

    @Test func registryListsEveryNodeWithItsLoad() throws {
        let trio = try ClusterTrio()
        let id = try trio.createSession(on: 1)
        #expect(trio.connect(on: 1, to: id) == .servedHere)
        #expect(eventually(timeout: 30) {
            (try? trio.cluster(0).nodes())?.first { $0.id == "node-1" }.map { $0.connections == 1 && $0.ownedSessions == 1 } == true
        })
        let nodes = try trio.cluster(0).nodes()
        #expect(nodes.map(\.id) == ["node-0", "node-1", "node-2"])
        #expect(nodes.map(\.url) == ["http://127.0.0.1:9100", "http://127.0.0.1:9101", "http://127.0.0.1:9102"])
        #expect(nodes.allSatisfy { $0.publicIP == "127.0.0.1" })
    }

    @Test func aSecondRouterWithTheSameNodeIdIsRefused() throws {
        let trio = try ClusterTrio()
        var configuration = Fixture.configuration()
        var cluster = ClusterConfiguration(redis: try RedisEndpoint(url: trio.redis.url()), nodeId: "node-0")
        cluster.heartbeatMilliseconds = 100
        cluster.nodeTTLMilliseconds = 300
        configuration.cluster = cluster
        let twin = RouterService(configuration: configuration, media: FakeMedia())
        defer { twin.stop() }
        #expect(throws: RouterError.self) { try twin.startCluster(url: "http://127.0.0.1:9200", mediaPort: nil) }
    }
}
