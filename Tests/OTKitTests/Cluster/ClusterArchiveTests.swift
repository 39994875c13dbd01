import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Archive calls by archive id on any node: a session owned by node 0 (A) with a client
/// whose socket is on node 1 (B). An archive started through B runs at A, which records
/// its id → node in Redis; it is stopped through node 2 (C), read and listed through B,
/// deleted through C; then B answers 404 for it, as A (a single router) does, and as for
/// an id nobody ever recorded. Each call crossed one hop (forwarding counters).
@Suite(.serialized) struct ClusterArchiveTests {
    static let project = ProjectCredentials(apiKey: "7722", apiSecret: "archive-secret-0123456789abcdef012345678")

    @Test func archiveCallsByIdWorkOnEveryNode() throws {
        let trio = try ClusterTrioRouters(project: Self.project)
        let check = RedisConnection(endpoint: try RedisEndpoint(url: trio.redis.url()), timeoutMilliseconds: 5000)
        let key = Self.project.apiKey
        let sessionId = try trio.routers[0].createSession(apiKey: key)
        let c = DelegateRecorder()
        let client = try trio.session(on: 1, sessionId, c)
        try trio.kit.connect(client, c, token: try trio.kit.token(sessionId, .publisher))

        // Start on A through B.
        let started = try trio.rest("POST", on: 1, "/v2/project/\(key)/archive",
                                    body: #"{"sessionId":"\#(sessionId)","outputMode":"individual","name":"across"}"#)
        #expect(started.status == 200, "\(started)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(started.body.utf8)) as? [String: Any])
        let archiveId = try #require(object["id"] as? String)
        #expect(try check.command("HGET", "otkit:archives", archiveId).text == "node-0")  // there before the reply went out
        #expect(trio.routers[0].service.cluster?.holdsArchive(archiveId) == true)
        #expect(trio.routers[1].service.cluster?.holdsArchive(archiveId) == false)
        #expect(c.wait { $0.contains("archiveStarted \(archiveId) name=across") })

        // Stop through C; read and list through B.
        let stopped = try trio.rest("POST", on: 2, "/v2/project/\(key)/archive/\(archiveId)/stop")
        #expect(stopped.status == 200 && stopped.body.contains(archiveId) && stopped.body.contains("\"stopped\""), "\(stopped)")
        #expect(c.wait { $0.contains("archiveStopped \(archiveId)") })
        let again = try trio.rest("POST", on: 2, "/v2/project/\(key)/archive/\(archiveId)/stop")
        #expect(again.status == 409, "\(again)")  // A's answer, verbatim
        let read = try trio.rest("GET", on: 1, "/v2/project/\(key)/archive/\(archiveId)")
        #expect(read.status == 200 && read.body.contains("\"id\":\"\(archiveId)\"") && read.body.contains(sessionId), "\(read)")
        let listed = try trio.rest("GET", on: 1, "/v2/project/\(key)/archive?sessionId=\(sessionId)")
        #expect(listed.status == 200 && listed.body.contains("\"count\":1") && listed.body.contains(archiveId), "\(listed)")

        // Delete through C: gone everywhere, and from Redis.
        #expect(untilTrue(30) { (try? trio.rest("GET", on: 0, "/v2/project/\(key)/archive/\(archiveId)"))?.body.contains("\"stopped\"") == false })
        let deleted = try trio.rest("DELETE", on: 2, "/v2/project/\(key)/archive/\(archiveId)")
        #expect(deleted.status == 204, "\(deleted)")
        let single = try trio.rest("GET", on: 0, "/v2/project/\(key)/archive/\(archiveId)")
        let afterDelete = try trio.rest("GET", on: 1, "/v2/project/\(key)/archive/\(archiveId)")
        #expect(single.status == 404 && afterDelete.status == 404 && afterDelete.body == single.body, "\(single) / \(afterDelete)")
        #expect(untilTrue(30) { (try? check.command("HEXISTS", "otkit:archives", archiveId)) == .integer(0) })

        // An id nobody recorded: B answers as a single router does.
        let unknownId = UUID().uuidString.lowercased()
        let unknownHere = try trio.rest("GET", on: 1, "/v2/project/\(key)/archive/\(unknownId)")
        let unknownAtA = try trio.rest("GET", on: 0, "/v2/project/\(key)/archive/\(unknownId)")
        #expect(unknownHere.status == 404 && unknownHere.body == unknownAtA.body, "\(unknownHere) / \(unknownAtA)")
        let stopUnknown = try trio.rest("POST", on: 2, "/v2/project/\(key)/archive/\(unknownId)/stop")
        #expect(stopUnknown.status == 404, "\(stopUnknown)")

        // Each call crossed one hop: B forwarded start, get and list (and the get after delete
        // found no entry); C forwarded stop twice and delete; A forwarded nothing.
        let statistics = (0..<3).map { trio.routers[$0].service.forwardingStatistics }
        #expect(statistics[0]?.restForwarded == 0, "\(statistics)")
        #expect(statistics[1]?.restForwarded == 3, "\(statistics)")
        #expect(statistics[2]?.restForwarded == 3, "\(statistics)")
        #expect(statistics.allSatisfy { $0?.forgedMarks == 0 })
        print("archive across nodes: forwarded per node \(statistics.map { $0?.restForwarded ?? 0 })")
        client.disconnect()
        #expect(c.wait { $0.last == "didDisconnect" })
    }
}
