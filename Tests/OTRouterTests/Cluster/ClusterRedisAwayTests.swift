import Foundation
@testable import OTRouter
@testable import OTSignaling
import OTTestSupport
import Testing

/// Redis away: what needs it is refused at once with a clear error (never served on a
/// guess, never left hanging), what does not keeps working, and once Redis is back the
/// same requests succeed. Short timings (heartbeat 100 ms); every wait polls.
@Suite(.serialized) struct ClusterRedisAwayTests {
    @Test func whatNeedsRedisIsRefusedClearlyWhileItIsAway() throws {
        let trio = try ClusterTrio(heartbeat: 100, nodeTTL: 600, claimTTL: 1000)
        #expect(eventually(timeout: 30) { (try? trio.registeredNodes()) == ["node-0", "node-1", "node-2"] })
        let before = try trio.createSession(on: 0)  // placed while Redis is up: node 2 will believe node 0 owns it
        #expect(trio.connect(on: 2, to: before) == .proxied)
        trio.redis.stop()

        // Node 1 still creates sessions (owned locally, stored when Redis returns) …
        let id = try trio.createSession(on: 1)
        #expect(trio.connect(on: 1, to: id) == .servedHere)
        // … but node 2, which does not know the session, cannot learn who owns it: refused, not served here.
        let (reply, closed) = trio.connectReply(on: 2, to: id)
        guard case .error(let error)? = reply else {
            Issue.record("expected an error reply, got \(String(describing: reply))")
            return
        }
        #expect(error.code == 1006, "\(error)")
        #expect(error.message.contains("Redis") && error.message.contains(id), "\(error.message)")
        #expect(closed)
        #expect(!trio.holds(2, id))  // no second copy of the session on node 2
        #expect(trio.cluster(2).statistics.refusedWithoutRedis == 1)
        #expect(trio.services[2].hub.metrics().cluster?.refusedWithoutRedis == 1)

        // REST that must find an owner answers 503 with OpenTok's error body, at once.
        let key = Fixture.project.apiKey
        let streams = trio.rest("GET", on: 2, "/v2/project/\(key)/session/\(before)/stream")
        #expect(streams.status == 503, "\(streams.status)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(streams.body)) as? [String: Any])
        #expect(body["code"] as? Int == 503 && (body["message"] as? String)?.contains("Redis") == true, "\(body)")
        let archive = trio.rest("GET", on: 2, "/v2/project/\(key)/archive/\(UUID().uuidString.lowercased())")
        #expect(archive.status == 503, "\(String(decoding: archive.body, as: UTF8.self))")
        // An id longer than any archive id is never looked up: the single router's 404, Redis or not.
        let overlong = trio.rest("GET", on: 2, "/v2/project/\(key)/archive/\(String(repeating: "a", count: 200))")
        #expect(overlong.status == 404, "\(String(decoding: overlong.body, as: UTF8.self))")

        // Redis back: node 1 stores its claim, and the same connect on node 2 is proxied to node 1.
        try trio.redis.restart()
        #expect(eventually(timeout: 30) { (try? trio.ownerInRedis(id)) == "node-1" })
        #expect(eventually(timeout: 30) { trio.connect(on: 2, to: id) == .proxied })
        #expect(!trio.holds(2, id))
        // An archive id nobody recorded: the single router's 404.
        let unknown = trio.rest("GET", on: 2, "/v2/project/\(key)/archive/\(UUID().uuidString.lowercased())")
        #expect(unknown.status == 404, "\(String(decoding: unknown.body, as: UTF8.self))")
        print("redis away: node-2 refused \(trio.cluster(2).statistics.refusedWithoutRedis) connect(s), counted \(trio.cluster(2).statistics.redisErrors) failed commands")
    }
}
