import Foundation
import Synchronization
@testable import OTRouter
import OTTestSupport
import Testing

/// Heartbeats and failures: a node whose heartbeat stops is pruned and its claims lapse
/// to the next node that sees the session; a node that leaves cleanly is gone at once;
/// Redis restarting empty makes every node register again and take its claims back.
/// Short timings (heartbeat 100 ms, node TTL 600 ms, claim TTL 1 s); every wait polls.
@Suite(.serialized) struct ClusterLivenessTests {
    @Test func aNodeWhoseHeartbeatStopsIsPrunedAndItsSessionsMove() throws {
        let trio = try ClusterTrio(heartbeat: 100, nodeTTL: 600, claimTTL: 1000)
        #expect(eventually(timeout: 30) { (try? trio.registeredNodes()) == ["node-0", "node-1", "node-2"] })
        let id = try trio.createSession(on: 2)
        #expect(try trio.ownerInRedis(id) == "node-2")
        trio.cluster(2).stop(deregister: false)  // as a crash would: no goodbye
        #expect(eventually(timeout: 30) { (try? trio.registeredNodes()) == ["node-0", "node-1"] })
        // The pruning node removes the registration, then counts it: wait for the count too.
        func prunedCount() -> UInt64 { UInt64(trio.cluster(0).statistics.nodesPruned + trio.cluster(1).statistics.nodesPruned) }
        #expect(eventually(timeout: 30) { prunedCount() >= 1 })
        let pruned = prunedCount()
        #expect(try trio.check.command("EXISTS", trio.keys.alive("node-2")) == .integer(0))
        // Its claim lapses; the next node to see the session takes it.
        #expect(eventually(timeout: 30) { (try? trio.ownerInRedis(id)) == .some(nil) })
        #expect(trio.connect(on: 1, to: id) == .servedHere)
        #expect(eventually(timeout: 30) { trio.cluster(1).believedOwner(of: id) == "node-1" })
        #expect(try trio.ownerInRedis(id) == "node-1")
        #expect(trio.cluster(1).tookOver(id) && trio.cluster(1).statistics.claimsTakenOver == 1)  // its owner's claim lapsed
        print("liveness: pruned \(pruned) node(s); node-1 heartbeats \(trio.cluster(1).statistics.heartbeats)")
    }

    /// A dead owner's session is taken over in one Redis step: while the owner is alive
    /// nothing changes; once its `alive` key lapsed (its claim still standing), two nodes
    /// taking it over at once agree on one new owner, and only that one says it took over.
    @Test func aDeadOwnersSessionIsTakenOverByExactlyOneNode() throws {
        let trio = try ClusterTrio(heartbeat: 100, nodeTTL: 600, claimTTL: 20_000)
        #expect(eventually(timeout: 30) { (try? trio.registeredNodes()) == ["node-0", "node-1", "node-2"] })
        let id = try trio.createSession(on: 2)
        #expect(try trio.cluster(0).takeOver(id, from: "node-2") == nil)  // alive: refused
        #expect(try trio.ownerInRedis(id) == "node-2")
        trio.cluster(2).stop(deregister: false)  // as a crash would
        #expect(eventually(timeout: 30) { (try? trio.check.command("EXISTS", trio.keys.alive("node-2"))) == .integer(0) })
        #expect(try trio.ownerInRedis(id) == "node-2")  // the claim has not lapsed
        let answers = Mutex<[Int: String?]>([:])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let owner = try? trio.cluster(index).takeOver(id, from: "node-2")
            answers.withLock { $0[index] = owner }
        }
        let owners = answers.withLock { $0 }
        let winner = try #require(try trio.ownerInRedis(id))
        #expect(["node-0", "node-1"].contains(winner))
        #expect(owners[0] == .some(winner) && owners[1] == .some(winner), "\(owners)")
        #expect([0, 1].filter { trio.cluster($0).tookOver(id) } == [winner == "node-0" ? 0 : 1])
        #expect(trio.cluster(0).statistics.claimsTakenOver + trio.cluster(1).statistics.claimsTakenOver == 1)
        let loser = winner == "node-0" ? 1 : 0
        #expect(trio.cluster(loser).believedOwner(of: id) == winner)
    }

    @Test func aNodeThatStopsCleanlyLeavesAtOnce() throws {
        let trio = try ClusterTrio()
        let id = try trio.createSession(on: 0)
        #expect(try trio.ownerInRedis(id) == "node-0")
        trio.services[0].stop()
        #expect(try trio.registeredNodes() == ["node-1", "node-2"])
        #expect(try trio.ownerInRedis(id) == nil)  // released, not left to lapse
    }

    @Test func redisRestartedEmptyNodesRegisterAgainAndRetakeClaims() throws {
        let trio = try ClusterTrio(heartbeat: 100, nodeTTL: 600, claimTTL: 1000)
        let ids = try (0..<3).map { try trio.createSession(on: $0) }
        #expect(eventually(timeout: 30) { (try? trio.registeredNodes()) == ["node-0", "node-1", "node-2"] })
        try trio.redis.restart()
        #expect(eventually(timeout: 30) { (try? trio.registeredNodes()) == ["node-0", "node-1", "node-2"] })
        #expect(eventually(timeout: 30) { ids.enumerated().allSatisfy { (try? trio.ownerInRedis($1)) == "node-\($0)" } })
        // The owners put their sessions' records back.
        #expect(eventually(timeout: 30) { (try? trio.check.command("HLEN", trio.keys.sessions)) == .integer(3) })
        for index in 0..<3 {
            let statistics = trio.cluster(index).statistics
            #expect(statistics.registrations >= 2, "node \(index): \(statistics)")
            #expect(statistics.claimsRetaken >= 1, "node \(index): \(statistics)")
            #expect(statistics.claimsDropped == 0)
        }
        // New sessions work again.
        let fresh = try trio.createSession(on: 1)
        #expect(try trio.ownerInRedis(fresh) == "node-1")
        print("restart: redis errors seen per node \((0..<3).map { trio.cluster($0).statistics.redisErrors })")
    }

    @Test func sessionsCreatedWhileRedisIsAwayReachItWhenItReturns() throws {
        let trio = try ClusterTrio(heartbeat: 100, nodeTTL: 600, claimTTL: 1000)
        trio.redis.stop()
        // The router keeps serving: the session is created, owned locally, and waits for Redis.
        let id = try trio.createSession(on: 0)
        #expect(trio.connect(on: 0, to: id) == .servedHere)
        #expect(trio.cluster(0).ownedSessions.contains(id))
        #expect(trio.cluster(0).statistics.redisErrors >= 1)
        try trio.redis.restart()
        #expect(eventually(timeout: 30) { (try? trio.ownerInRedis(id)) == "node-0" })
        #expect(eventually(timeout: 30) { (try? trio.check.command("HEXISTS", trio.keys.sessions, id)) == .integer(1) })
        #expect(eventually(timeout: 30) { trio.cluster(2).knownSession(id)?.createdBy == "node-0" })
        #expect(eventually(timeout: 30) { (try? trio.registeredNodes()) == ["node-0", "node-1", "node-2"] })
        print("redis away: node-0 counted \(trio.cluster(0).statistics.redisErrors) failed commands")
    }
}
