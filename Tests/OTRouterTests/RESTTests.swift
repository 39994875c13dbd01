import Foundation
import OTNet
@testable import OTRouter
@testable import OTSignaling
import Testing

@Suite struct RESTTests {
    @Test func sessionCreateAnswersAsTheSDKNeeds() throws {
        let h = try Harness()
        let response = h.service.handle(HTTPRequest(method: "POST", path: "/session/create",
                                                    headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project),
                                                              "content-type": "application/x-www-form-urlencoded"],
                                                    body: Array("p2p.preference=disabled&archiveMode=manual&e2ee=false".utf8)))
        #expect(response.status == 200)
        #expect(response.contentType == "application/json")
        let list = try #require((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]])
        let sessionId = try #require(list.first?["session_id"] as? String)
        #expect(list.first?["project_id"] as? String == Fixture.project.apiKey)
        #expect(list.first?["partner_id"] as? String == Fixture.project.apiKey)
        #expect(list.first?["media_server_url"] as? String == "")
        #expect((list.first?["create_dt"] as? String)?.hasSuffix("UTC \(Calendar.current.component(.year, from: Date()))") == true)
        #expect(try OpenTokSessionID(parsing: sessionId).belongs(toAPIKey: Fixture.project.apiKey))
        #expect(sessionId.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" })
        // Routed: connecting reports relayed false.
        let peer = h.open(session: sessionId)
        guard case .connected(let reply)? = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey,
                                                                                   token: try h.token(session: sessionId)))) else {
            Issue.record("connect failed"); return
        }
        #expect(!reply.relayed)
    }

    @Test(arguments: [
        ("p2p.preference=enabled&archiveMode=manual&e2ee=false", 200),
        ("p2p.preference=enabled&archiveMode=always&e2ee=false", 400),
        ("p2p.preference=disabled&archiveMode=always&archiveName=My+archive&e2ee=false", 200),
        ("p2p.preference=sometimes", 400),
    ])
    func sessionCreateForms(body: String, status: Int) throws {
        let h = try Harness()
        let response = h.service.handle(HTTPRequest(method: "POST", path: "//session/create",
                                                    headers: ["x-opentok-auth": ProjectJWT.sign(credentials: Fixture.project)],
                                                    body: Array(body.utf8)))
        #expect(response.status == status, "\(response.text)")
    }

    @Test func sessionCreateAuthentication() throws {
        let h = try Harness()
        func create(_ auth: String?) -> Int {
            var headers: [String: String] = [:]
            headers["x-opentok-auth"] = auth
            return h.service.handle(HTTPRequest(method: "POST", path: "/session/create", headers: headers)).status
        }
        #expect(create(nil) == 401)
        #expect(create(ProjectJWT.sign(credentials: ProjectCredentials(apiKey: Fixture.project.apiKey, apiSecret: "wrong"))) == 403)
        #expect(create(ProjectJWT.sign(credentials: ProjectCredentials(apiKey: "555", apiSecret: "x"))) == 403)
        #expect(create(ProjectJWT.sign(credentials: Fixture.project, now: UnixTime.now() - 1000)) == 403)
    }

    enum Auth: CaseIterable { case missing, expired, wrongKey, otherProjectKey, garbage }

    @Test(arguments: Auth.allCases)
    func projectAuthentication(_ auth: Auth) throws {
        let h = try Harness()
        let header: String
        var expected = 403
        switch auth {
        case .missing: header = ""; expected = 401
        case .expired: header = ProjectJWT.sign(credentials: Fixture.project, now: UnixTime.now() - 1000)
        case .wrongKey: header = ProjectJWT.sign(credentials: ProjectCredentials(apiKey: Fixture.project.apiKey, apiSecret: "nope"))
        case .otherProjectKey: header = ProjectJWT.sign(credentials: Fixture.other)
        case .garbage: header = "a.b.c"; expected = 401
        }
        let response = h.http("GET", "\(h.projectPath)/archive", auth: header)
        #expect(response.status == expected)
        #expect(response.contentType == "application/json")
        #expect(response.object["message"] is String)
        // An API key the router does not serve.
        #expect(h.http("GET", "/v2/project/555/archive").status == 403)
    }

    @Test func signals() throws {
        let h = try Harness()
        let (a, ra) = try h.join()
        let (b, _) = try h.join()
        [a, b].forEach { $0.clear() }
        let base = "\(h.projectPath)/session/\(h.sessionId)"
        #expect(h.http("POST", "\(base)/signal", body: #"{"type": "chat", "data": "hello"}"#).status == 204)
        for peer in [a, b] { #expect(peer.events == [.signal(type: "chat", data: "hello", from: nil)]) }
        [a, b].forEach { $0.clear() }
        #expect(h.http("POST", "/\(base)/connection/\(ra.connection.connectionId)/signal", body: #"{"data": "only a"}"#).status == 204)
        #expect(a.events == [.signal(type: "", data: "only a", from: nil)] && b.events.isEmpty)
        #expect(h.http("POST", "\(base)/signal", body: #"{"type": "chat"}"#).status == 400)
        #expect(h.http("POST", "\(base)/signal", body: "not json").status == 400)
        #expect(h.http("POST", "\(base)/signal", body: #"{"type": "bad type", "data": "x"}"#).status == 400)
        #expect(h.http("POST", "\(base)/signal", body: #"{"type": "\#(String(repeating: "t", count: 129))", "data": "x"}"#).status == 413)
        #expect(h.http("POST", "\(base)/signal", body: #"{"data": "\#(String(repeating: "d", count: 8193))"}"#).status == 413)
        #expect(h.http("POST", "\(base)/connection/nope/signal", body: #"{"data": "x"}"#).status == 404)
        #expect(h.http("POST", "\(h.projectPath)/session/1_unknown/signal", body: #"{"data": "x"}"#).status == 404)
        #expect(h.service.metrics.signals == 2)
    }

    @Test func forceDisconnectAndMute() throws {
        let h = try Harness()
        let (a, ra) = try h.join()
        let (b, _) = try h.join()
        let stream = try h.publish(b).stream.streamId
        let base = "\(h.projectPath)/session/\(h.sessionId)"
        #expect(h.http("POST", "\(base)/stream/\(stream)/mute").status == 204)
        #expect(h.media.muted == [stream])
        #expect(h.http("POST", "\(base)/stream/nope/mute").status == 404)
        #expect(h.http("POST", "\(base)/mute", body: #"{"active": false}"#).status == 204)
        #expect(h.media.muted.isEmpty)
        #expect(h.http("POST", "\(base)/mute", body: #"{"active": true, "excludedStreams": []}"#).status == 204)
        #expect(h.media.muted == [stream])
        #expect(h.http("POST", "\(h.projectPath)/session/1_unknown/mute", body: #"{"active": true}"#).status == 404)
        #expect(h.http("DELETE", "\(base)/connection/\(ra.connection.connectionId)").status == 204)
        #expect(a.isClosed)
        #expect(h.http("DELETE", "\(base)/connection/\(ra.connection.connectionId)").status == 404)
    }

    @Test func streams() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        let stream = try h.publish(a, name: "Bob").stream.streamId
        let base = "\(h.projectPath)/session/\(h.sessionId)"
        let list = h.http("GET", "\(base)/stream")
        #expect(list.status == 200 && list.object["count"] as? Int == 1)
        let one = h.http("GET", "\(base)/stream/\(stream)")
        #expect(one.status == 200 && one.object["name"] as? String == "Bob" && one.object["videoType"] as? String == "camera")
        #expect(one.object["layoutClassList"] as? [String] == [])
        #expect(h.http("GET", "\(base)/stream/nope").status == 404)
        #expect(h.http("GET", "\(h.projectPath)/session/1_unknown/stream").status == 404)
    }

    @Test func archives() throws {
        let h = try Harness()
        let start = #"{"name": null, "sessionId": "\#(h.sessionId)", "hasAudio": true, "hasVideo": true, "outputMode": "composed", "resolution": null, "streamMode": "auto", "multiArchiveTag": null, "maxBitrate": null}"#
        let noClient = h.http("POST", "\(h.projectPath)/archive", body: start)
        #expect(noClient.status == 400 && noClient.object["message"] is String)
        _ = try h.join()
        let started = h.http("POST", "\(h.projectPath)/archive", body: start)
        #expect(started.status == 200)
        let archive = started.object
        let id = try #require(archive["id"] as? String)
        #expect(archive["status"] as? String == "paused", "a client but no stream: recording nothing yet")
        #expect((archive["createdAt"] as? Int).map { $0 > 1_700_000_000_000 } == true)
        #expect(archive["partnerId"] as? Int == 12345678)
        #expect(archive["url"] is NSNull && archive["size"] as? Int == 0)
        #expect(archive["reason"] as? String == "")
        #expect(archive["outputMode"] as? String == "composed")
        let again = h.http("POST", "\(h.projectPath)/archive", body: start)
        #expect(again.status == 409 && again.object["message"] as? String == "Session is already being recorded")
        #expect(h.http("POST", "\(h.projectPath)/archive", body: #"{"sessionId": "1_unknown"}"#).status == 404)
        #expect(h.http("DELETE", "\(h.projectPath)/archive/\(id)").status == 409)
        #expect(h.http("GET", "\(h.projectPath)/archive/\(id)").object["id"] as? String == id)
        let list = h.http("GET", "\(h.projectPath)/archive", query: [("sessionId", h.sessionId)])
        #expect(list.object["count"] as? Int == 1 && (list.object["items"] as? [Any])?.count == 1)
        #expect(h.http("GET", "\(h.projectPath)/archive", query: [("sessionId", "1_other")]).object["count"] as? Int == 0)
        #expect(h.http("GET", "\(h.projectPath)/archive", query: [("offset", "1")]).object["items"] as? [Any] != nil)
        let stopped = h.http("POST", "\(h.projectPath)/archive/\(id)/stop")
        #expect(stopped.status == 200 && stopped.object["status"] as? String == "stopped" && stopped.object["duration"] is Int)
        let twice = h.http("POST", "\(h.projectPath)/archive/\(id)/stop")
        #expect(twice.status == 409 && twice.object["message"] as? String == "Archive is not in started state")
        #expect(h.http("POST", "\(h.projectPath)/archive/nope/stop").status == 404)
        #expect(h.http("GET", "\(h.projectPath)/archive/nope").status == 404)
        #expect(h.http("DELETE", "\(h.projectPath)/archive/\(id)").status == 204)
        #expect(h.http("DELETE", "\(h.projectPath)/archive/\(id)").status == 404)
    }

    @Test func relayedSessionsCannotArchive() throws {
        let h = try Harness(relayed: true)
        _ = try h.join()
        let response = h.http("POST", "\(h.projectPath)/archive", body: #"{"sessionId": "\#(h.sessionId)"}"#)
        #expect(response.status == 409)
    }

    @Test func healthAndUnknownPaths() throws {
        let h = try Harness()
        #expect(h.service.handle(HTTPRequest(method: "GET", path: "/healthz")).status == 200)
        let missing = h.service.handle(HTTPRequest(method: "GET", path: "/nope"))
        #expect(missing.status == 404 && missing.contentType == "application/json")
    }
}
