import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

@Suite struct ArchiveEventTests {
    @Test func startStopEventsAndLateJoiner() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        a.clear()
        let started = h.http("POST", "\(h.projectPath)/archive", body: #"{"name": "rec", "sessionId": "\#(h.sessionId)"}"#)
        #expect(started.status == 200)
        let id = try #require(started.object["id"] as? String)
        #expect(a.events == [.archiveStarted(WireArchive(id: id, name: "rec"))])
        let (_, late) = try h.join()
        #expect(late.archive == WireArchive(id: id, name: "rec"))
        a.clear()
        #expect(h.http("POST", "\(h.projectPath)/archive/\(id)/stop").status == 200)
        #expect(a.events == [.archiveStopped(archiveId: id)])
        let (_, later) = try h.join()
        #expect(later.archive == nil)
    }

    @Test func alwaysModeRecordsWhileAnyoneIsConnected() throws {
        let h = try Harness()
        let created = h.service.handle(HTTPRequest(method: "POST", path: "/session/create",
                                                   headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project)],
                                                   body: Array("p2p.preference=disabled&archiveMode=always&archiveName=auto&e2ee=false".utf8)))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [[String: Any]])
        let session = try #require(body.first?["session_id"] as? String)
        let peer = h.open(session: session)
        guard case .connected(let reply)? = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey,
                                                                                   token: try h.token(session: session)))) else {
            Issue.record("connect failed"); return
        }
        #expect(reply.archive == nil)
        guard case .archiveStarted(let archive)? = peer.events.first else { Issue.record("no archiveStarted: \(peer.events)"); return }
        #expect(archive.name == "auto")
        #expect(h.request(peer, .disconnect) == .ok)
        let stored = h.http("GET", "\(h.projectPath)/archive/\(archive.id)")
        #expect(stored.object["status"] as? String == "stopped")
    }
}
