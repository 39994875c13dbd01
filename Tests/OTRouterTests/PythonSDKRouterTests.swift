import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// The real `opentok` Python server SDK driving a running Router over HTTP: every call
/// must succeed with the SDK's own parsing.
@Suite(.enabled(if: PythonSDK.shouldRun, "the opentok Python SDK could not be installed (PyPI unreachable?) and OTKIT_REQUIRE_DEPENDENCIES is not set"), .serialized)
struct PythonSDKRouterTests {
    static let createScript = """
    import json, sys, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"], api_url=req["apiUrl"])
    s = c.create_session(media_mode=opentok.MediaModes.routed)
    print(json.dumps({"sessionId": s.session_id,
                      "jwt": c.generate_token(s.session_id, role=opentok.Roles.moderator, data="py"),
                      "t1": c.generate_token(s.session_id, use_jwt=False)}))
    """

    static let driveScript = """
    import json, sys, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"], api_url=req["apiUrl"])
    sid, conn, stream = req["sessionId"], req["connectionId"], req["streamId"]
    out = {}
    def step(name, f):
        try:
            out[name] = f()
        except Exception as e:
            out[name] = {"error": repr(e)}
    step("signal", lambda: c.send_signal(sid, {"type": "chat", "data": "from python"}) or "ok")
    step("signalOne", lambda: c.send_signal(sid, {"type": "chat", "data": "just you"}, conn) or "ok")
    step("muteAll", lambda: c.mute_all(sid, []).status_code)
    step("disableForceMute", lambda: c.disable_force_mute(sid).status_code)
    step("muteStream", lambda: c.mute_stream(sid, stream).status_code)
    def archive():
        a = c.start_archive(sid, name="py")
        g = c.get_archive(a.id)
        l = c.list_archives(session_id=sid)
        a.stop()
        c.delete_archive(a.id)
        return {"id": a.id, "started": g.status, "partner": str(a.partner_id), "createdAt": a.created_at is not None,
                "count": l.count, "listIds": [x.id for x in l.items], "stopped": a.status, "url": a.url, "size": a.size}
    step("archive", archive)
    def streams():
        l = c.list_streams(sid)
        one = c.get_stream(sid, stream)
        return {"count": l.count, "ids": [x.id for x in l.items], "name": one.name, "videoType": one.videoType}
    step("streams", streams)
    step("forceDisconnect", lambda: c.force_disconnect(sid, conn) or "ok")
    print(json.dumps(out))
    """

    @Test func sdkDrivesTheRouter() throws {
        let router = try Router(configuration: Fixture.configuration(), media: FakeMedia())
        defer { router.stop() }
        let credentials: [String: Any] = ["apiKey": Fixture.project.apiKey, "apiSecret": Fixture.project.apiSecret,
                                          "apiUrl": router.baseURL + "/"]  // the trailing slash makes the SDK send `//` paths
        let created = try #require(try PythonSDK.json(Self.createScript, input: credentials) as? [String: Any])
        let sessionId = try #require(created["sessionId"] as? String)
        let jwt = try #require(created["jwt"] as? String)
        let t1 = try #require(created["t1"] as? String)
        let grant = try OpenTokToken.verify(jwt, credentials: Fixture.project, sessionID: sessionId)
        #expect(grant.role == .moderator && grant.connectionData == "py" && grant.format == .jwt)
        #expect(try OpenTokToken.verify(t1, credentials: Fixture.project, sessionID: sessionId).format == .t1)

        // Two clients on the SDK's session (fake sockets on the running service), one publishing.
        func join(_ token: String) throws -> (FakePeer, ConnectedReply) {
            let peer = FakePeer()
            router.service.webSocketOpened(peer, path: "/v1/session/\(sessionId)/ws", query: [])
            router.service.webSocketReceived(peer, text: SignalingCodec.encode(.connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: token)), requestId: 1))
            guard case .connected(let reply)? = peer.reply(to: 1) else { throw HarnessError.unexpected }
            return (peer, reply)
        }
        let (publisher, published) = try join(jwt)
        let (watcher, _) = try join(t1)
        router.service.webSocketReceived(publisher, text: SignalingCodec.encode(.publish(PublishRequest(
            name: "Bob", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true, videoWidth: 640, videoHeight: 480,
            videoType: "camera")), requestId: 2))
        guard case .published(let stream)? = publisher.reply(to: 2) else { Issue.record("publish failed"); return }
        [publisher, watcher].forEach { $0.clear() }

        var input = credentials
        input["sessionId"] = sessionId
        input["connectionId"] = published.connection.connectionId
        input["streamId"] = stream.stream.streamId
        let out = try #require(try PythonSDK.json(Self.driveScript, input: input) as? [String: Any])
        #expect(out["signal"] as? String == "ok", "\(out["signal"] ?? "")")
        #expect(out["signalOne"] as? String == "ok", "\(out["signalOne"] ?? "")")
        #expect(out["muteAll"] as? Int == 204 && out["disableForceMute"] as? Int == 204 && out["muteStream"] as? Int == 204,
                "\(out)")
        let archive = try #require(out["archive"] as? [String: Any], "\(out["archive"] ?? "")")
        #expect(archive["started"] as? String == "started" && archive["stopped"] as? String == "stopped", "\(archive)")
        #expect(archive["partner"] as? String == Fixture.project.apiKey && archive["createdAt"] as? Bool == true)
        #expect(archive["count"] as? Int == 1 && archive["listIds"] as? [String] == [archive["id"] as? String ?? ""])
        #expect(archive["url"] is NSNull && archive["size"] as? Int == 0)
        let streams = try #require(out["streams"] as? [String: Any], "\(out["streams"] ?? "")")
        #expect(streams["count"] as? Int == 1 && streams["ids"] as? [String] == [stream.stream.streamId])
        #expect(streams["name"] as? String == "Bob" && streams["videoType"] as? String == "camera")
        #expect(out["forceDisconnect"] as? String == "ok", "\(out["forceDisconnect"] ?? "")")

        // What the clients saw.
        #expect(watcher.events.contains(.signal(type: "chat", data: "from python", from: nil)))
        #expect(publisher.events.contains(.signal(type: "chat", data: "just you", from: nil)))
        #expect(!watcher.events.contains(.signal(type: "chat", data: "just you", from: nil)))
        #expect(publisher.events.contains(.muteForced(streamId: stream.stream.streamId, active: true)))
        #expect(watcher.events.contains(.muteForced(streamId: nil, active: false)))
        #expect(publisher.events.last == .disconnected(reason: "forceDisconnected", code: nil))
        #expect(watcher.events.last == .connectionDestroyed(connectionId: published.connection.connectionId, reason: "forceDisconnected"))
        #expect(router.metrics.restRequests[204, default: 0] >= 6)
    }
}
