import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

/// The archive REST surface's options and error paths in OpenTok's shape (the bodies the
/// Python SDK reads: `{"code", "message"}`): `multiArchiveTag`, `maxDuration`, manual
/// stream mode with `PATCH …/streams`, `paused`, `archiveMode: always`.
@Suite struct ArchiveRESTTests {
    private func start(_ h: Harness, _ extra: String = "", session: String? = nil) -> HTTPResponse {
        h.http("POST", "\(h.projectPath)/archive",
               body: #"{"sessionId": "\#(session ?? h.sessionId)", "outputMode": "composed", "resolution": null\#(extra)}"#)
    }

    private func createSession(_ h: Harness, _ form: String) throws -> String {
        let created = h.service.handle(HTTPRequest(method: "POST", path: "/session/create",
                                                   headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project)],
                                                   body: Array(form.utf8)))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(created.body)) as? [[String: Any]])
        return try #require(body.first?["session_id"] as? String)
    }

    @Test func multiArchiveTagAllowsOneArchivePerTag() throws {
        let h = try Harness()
        _ = try h.join()
        let first = start(h)
        #expect(first.status == 200 && first.object["multiArchiveTag"] is NSNull)
        let again = start(h)
        #expect(again.status == 409 && again.object["message"] as? String == "Session is already being recorded", "\(again.text)")
        let tagged = start(h, #", "multiArchiveTag": "t1""#)
        #expect(tagged.status == 200 && tagged.object["multiArchiveTag"] as? String == "t1", "\(tagged.text)")
        let sameTag = start(h, #", "multiArchiveTag": "t1""#)
        #expect(sameTag.status == 409 && sameTag.object["code"] as? Int == 409 && sameTag.object["message"] is String)
        #expect(start(h, #", "multiArchiveTag": "t2""#).status == 200)
        for bad in [#", "multiArchiveTag": 7"#, #", "multiArchiveTag": """#, ", \"multiArchiveTag\": \"\(String(repeating: "x", count: 257))\""] {
            #expect(start(h, bad).status == 400)
        }
        let listed = h.http("GET", "\(h.projectPath)/archive", query: [("sessionId", h.sessionId)])
        #expect(listed.object["count"] as? Int == 3)
        // Stopping the tagged one frees its tag.
        let id = try #require(tagged.object["id"] as? String)
        #expect(h.http("POST", "\(h.projectPath)/archive/\(id)/stop").status == 200)
        #expect(start(h, #", "multiArchiveTag": "t1""#).status == 200)
    }

    @Test func maxDurationIsRangeCheckedAndStopsTheArchive() throws {
        let h = try Harness()
        let (peer, _) = try h.join()
        for bad in ["59", "36001", "\"60\"", "60.5", "true", "-1", "1e300"] {
            let refused = start(h, ", \"maxDuration\": \(bad)")
            #expect(refused.status == 400 && (refused.object["message"] as? String)?.contains("maxDuration") == true, "\(bad): \(refused.text)")
        }
        let started = start(h, #", "maxDuration": 60"#)
        #expect(started.status == 200 && started.object["maxDuration"] as? Int == 60, "\(started.text)")
        let id = try #require(started.object["id"] as? String)
        let createdAt = try #require(started.object["createdAt"] as? Int)
        peer.clear()
        h.service.hub.stopOverdueArchives(nowMilliseconds: Int64(createdAt) + 59_999)
        #expect(h.http("GET", "\(h.projectPath)/archive/\(id)").object["status"] as? String != "stopped")
        h.service.hub.stopOverdueArchives(nowMilliseconds: Int64(createdAt) + 60_000)
        let stopped = h.http("GET", "\(h.projectPath)/archive/\(id)").object
        #expect(stopped["status"] as? String == "stopped" && stopped["reason"] as? String == "maximum duration exceeded", "\(stopped)")
        #expect(peer.events == [.archiveStopped(archiveId: id)])
        // Without maxDuration: OpenTok's 4 h.
        #expect(start(h).object["maxDuration"] as? Int == 14_400)
    }

    @Test func pausedWhileNoStreamIsPublished() throws {
        let h = try Harness()
        let (peer, _) = try h.join()
        let started = start(h)
        let id = try #require(started.object["id"] as? String)
        #expect(started.object["status"] as? String == "paused", "no stream yet: \(started.text)")
        let stream = try h.publish(peer).stream.streamId
        #expect(h.http("GET", "\(h.projectPath)/archive/\(id)").object["status"] as? String == "started")
        #expect(h.request(peer, .unpublish(streamId: stream)) != nil)
        #expect(h.http("GET", "\(h.projectPath)/archive/\(id)").object["status"] as? String == "paused")
        #expect(h.http("DELETE", "\(h.projectPath)/archive/\(id)").status == 409, "a paused archive is still recording")
        let stopped = h.http("POST", "\(h.projectPath)/archive/\(id)/stop")
        #expect(stopped.status == 200 && stopped.object["status"] as? String == "stopped")
    }

    @Test func manualStreamModeAddsAndRemovesStreams() throws {
        let h = try Harness()
        let (peer, _) = try h.join()
        let streamId = try h.publish(peer).stream.streamId
        let auto = try #require(start(h).object["id"] as? String)
        let autoPatch = h.http("PATCH", "\(h.projectPath)/archive/\(auto)/streams", body: #"{"addStream": "\#(streamId)"}"#)
        #expect(autoPatch.status == 400 && (autoPatch.object["message"] as? String)?.contains("auto") == true, "\(autoPatch.text)")
        #expect(h.http("POST", "\(h.projectPath)/archive/\(auto)/stop").status == 200)

        let manual = start(h, #", "streamMode": "manual""#)
        #expect(manual.object["streamMode"] as? String == "manual" && manual.object["streams"] as? [Any] != nil)
        let id = try #require(manual.object["id"] as? String)
        let path = "\(h.projectPath)/archive/\(id)/streams"
        #expect(h.http("PATCH", "\(h.projectPath)/archive/nope/streams", body: #"{"removeStream": "x"}"#).status == 404)
        #expect(h.http("PATCH", path, body: #"{"addStream": "no-such-stream"}"#).status == 404)
        #expect(h.http("PATCH", path, body: #"{"removeStream": "\#(streamId)"}"#).status == 404, "not in the archive yet")
        #expect(h.http("PATCH", path, body: #"{"addStream": "\#(streamId)", "hasAudio": false, "hasVideo": false}"#).status == 400)
        for malformed in [#"{}"#, #"{"addStream": 5}"#, #"{"addStream": "a", "removeStream": "b"}"#,
                          #"{"addStream": "\#(streamId)", "hasAudio": "yes"}"#, "[1]", "not json"] {
            #expect(h.http("PATCH", path, body: malformed).status == 400, "\(malformed)")
        }
        #expect(h.http("PATCH", path, body: #"{"hasAudio": true, "hasVideo": false, "addStream": "\#(streamId)"}"#).status == 204)
        var streams = h.http("GET", "\(h.projectPath)/archive/\(id)").object["streams"] as? [[String: Any]]
        #expect(streams?.count == 1 && streams?.first?["streamId"] as? String == streamId
            && streams?.first?["hasAudio"] as? Bool == true && streams?.first?["hasVideo"] as? Bool == false, "\(String(describing: streams))")
        #expect(h.http("PATCH", path, body: #"{"addStream": "\#(streamId)"}"#).status == 204, "adding again changes the tracks")
        streams = h.http("GET", "\(h.projectPath)/archive/\(id)").object["streams"] as? [[String: Any]]
        #expect(streams?.count == 1 && streams?.first?["hasVideo"] as? Bool == true)
        #expect(h.http("PATCH", path, body: #"{"removeStream": "\#(streamId)"}"#).status == 204)
        #expect((h.http("GET", "\(h.projectPath)/archive/\(id)").object["streams"] as? [Any])?.isEmpty == true)
        #expect(h.http("POST", "\(h.projectPath)/archive/\(id)/stop").status == 200)
        let late = h.http("PATCH", path, body: #"{"addStream": "\#(streamId)"}"#)
        #expect(late.status == 409 && late.object["message"] as? String == "Archive is not in started state")
    }

    @Test func errorStatusesAndBodies() throws {
        let h = try Harness()
        let unknownSession = start(h, session: "1_MX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH5hYmN-fg")
        #expect(unknownSession.status == 404 && unknownSession.object["message"] as? String == "Session not found", "\(unknownSession.text)")
        let noClient = start(h)
        #expect(noClient.status == 400 && noClient.object["message"] is String)
        _ = try h.join()
        let individualResolution = h.http("POST", "\(h.projectPath)/archive",
                                          body: #"{"sessionId": "\#(h.sessionId)", "outputMode": "individual", "resolution": "1280x720"}"#)
        #expect(individualResolution.status == 400)
        for bad in [#", "streamMode": "sometimes""#, #", "hasAudio": false, "hasVideo": false"#] {
            #expect(start(h, bad).status == 400, "\(bad)")
        }
        #expect(h.http("GET", "\(h.projectPath)/archive/nope").object["message"] as? String == "Archive not found")
        #expect(h.http("POST", "\(h.projectPath)/archive/nope/stop").status == 404)
        #expect(h.http("DELETE", "\(h.projectPath)/archive/nope").status == 404)
        let id = try #require(start(h).object["id"] as? String)
        // Another project sees none of it.
        #expect(h.http("GET", "/v2/project/\(Fixture.other.apiKey)/archive/\(id)", credentials: Fixture.other).status == 404)
        #expect(h.http("POST", "\(h.projectPath)/archive/\(id)/stop").status == 200)
        let twice = h.http("POST", "\(h.projectPath)/archive/\(id)/stop")
        #expect(twice.status == 409 && twice.object["message"] as? String == "Archive is not in started state")
        #expect(h.http("GET", "\(h.projectPath)/archive", query: [("offset", "-1")]).status == 400)
        #expect(h.http("GET", "\(h.projectPath)/archive", query: [("count", "1001")]).status == 400)
        for (name, value) in [("offset", "abc"), ("count", "ten"), ("offset", "99999999999999999999")] {
            #expect(h.http("GET", "\(h.projectPath)/archive", query: [(name, value)]).status == 400, "\(name)=\(value)")
        }
        let page = h.http("GET", "\(h.projectPath)/archive", query: [("offset", "0"), ("count", "1"), ("sessionId", h.sessionId)])
        #expect(page.status == 200 && page.object["count"] as? Int == 1 && (page.object["items"] as? [Any])?.count == 1)
        #expect(h.http("DELETE", "\(h.projectPath)/archive/\(id)").status == 204)
        #expect(h.http("GET", "\(h.projectPath)/archive/\(id)").status == 404)
        // A bad JWT: 403 with a JSON body (the SDK raises AuthError).
        let forged = h.http("GET", "\(h.projectPath)/archive", auth: "e30.e30.e30")
        #expect([401, 403].contains(forged.status) && forged.object["message"] is String)

        // Relayed and end-to-end encrypted sessions cannot be archived: 409 as OpenTok
        // ("a session that does not use the OpenTok Media Router").
        let relayed = try createSession(h, "p2p.preference=enabled&archiveMode=manual&e2ee=false")
        _ = try h.join(session: relayed)
        #expect(start(h, session: relayed).status == 409)
        let e2ee = try createSession(h, "p2p.preference=disabled&archiveMode=manual&e2ee=true")
        _ = try h.join(session: e2ee)
        let refused = start(h, session: e2ee)
        #expect(refused.status == 409 && (refused.object["message"] as? String)?.contains("end-to-end") == true)
    }

    @Test func alwaysModeStartsAtTheFirstStreamAndStopsWhenTheSessionEmpties() throws {
        let h = try Harness()
        let session = try createSession(h, "p2p.preference=disabled&archiveMode=always&archiveName=auto&e2ee=false")
        let (peer, reply) = try h.join(session: session)
        #expect(reply.archive == nil)
        #expect(h.http("GET", "\(h.projectPath)/archive", query: [("sessionId", session)]).object["count"] as? Int == 0,
                "connecting alone records nothing")
        _ = try h.publish(peer)
        guard case .archiveStarted(let archive)? = peer.events.first(where: { if case .archiveStarted = $0 { true } else { false } }) else {
            Issue.record("no archiveStarted: \(peer.events)"); return
        }
        #expect(archive.name == "auto")
        #expect(h.http("GET", "\(h.projectPath)/archive/\(archive.id)").object["status"] as? String == "started")
        // A manual archive beside the automatic one needs a tag.
        #expect(start(h, session: session).status == 409)
        #expect(start(h, #", "multiArchiveTag": "mine""#, session: session).status == 200)
        #expect(h.request(peer, .disconnect) == .ok)
        let list = h.http("GET", "\(h.projectPath)/archive", query: [("sessionId", session)]).object
        let statuses = (list["items"] as? [[String: Any]])?.compactMap { $0["status"] as? String }
        // Both ended when the session emptied: "stopped", or already "available" once the
        // recorder finished its files (a fast writer gets there before this request).
        #expect(statuses?.count == 2 && statuses?.allSatisfy { ["stopped", "available"].contains($0) } == true, "\(list)")
    }
}
