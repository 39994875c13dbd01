import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// OTKit clients in a session run by a server SDK we did not write: the real `opentok`
/// 3.15.0 Python SDK (PyPI) with `api_url` = the embedded Router creates the session,
/// mints a T1 and a JWT token, then signals, mutes, archives and force-disconnects while
/// the Swift side waits for each effect on the clients' delegates.
///
/// Each Python step is one short run of `script` (`python -c script <step>` with its
/// arguments as JSON on stdin, the result as JSON on stdout): no long-lived child to
/// keep in sync, and a failing step shows its traceback.
@Suite(.enabled(if: PythonSDK.shouldRun, "the opentok Python SDK could not be installed (PyPI unreachable?) and OTKIT_REQUIRE_DEPENDENCIES is not set"), .serialized)
struct PythonSDKClientTests {
    static let project = ProjectCredentials(apiKey: "4712", apiSecret: "fedcba9876543210fedcba9876543210fedcba98")
    static let publisherData = "name=Zoë&role=pub"
    static let moderatorData = #"{"name":"mod","id":7}"#
    private let kit = SessionTestKit(project: Self.project)

    static let script = """
    import json, sys, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"], api_url=req["apiUrl"])
    sid = req.get("sessionId")
    def archive(a):
        return {"id": a.id, "name": a.name, "status": a.status, "sessionId": a.session_id}
    step = sys.argv[1]
    if step == "create":
        s = c.create_session(media_mode=opentok.MediaModes.routed)
        out = {"sessionId": s.session_id,
               "t1": c.generate_token(s.session_id, role=opentok.Roles.publisher, data=req["t1Data"], use_jwt=False),
               "jwt": c.generate_token(s.session_id, role=opentok.Roles.moderator, data=req["jwtData"])}
    elif step == "signal":
        r = c.send_signal(sid, {"type": req["type"], "data": req["data"]}, req.get("connectionId"))
        out = "ok" if r is None else repr(r)
    elif step == "muteAll":
        out = c.mute_all(sid, []).status_code
    elif step == "disableForceMute":
        out = c.disable_force_mute(sid).status_code
    elif step == "muteStream":
        out = c.mute_stream(sid, req["streamId"]).status_code
    elif step == "startArchive":
        out = archive(c.start_archive(sid, name=req["name"]))
    elif step == "stopArchive":
        out = archive(c.stop_archive(req["archiveId"]))
    elif step == "forceDisconnect":
        r = c.force_disconnect(sid, req["connectionId"])
        out = "ok" if r is None else repr(r)
    else:
        raise SystemExit("unknown step " + step)
    print(json.dumps(out))
    """

    /// One SDK step against `router`; `input` is added to the credentials.
    private func sdk(_ step: String, _ router: Router, _ input: [String: Any] = [:]) throws -> Any {
        let base: [String: Any] = ["apiKey": Self.project.apiKey, "apiSecret": Self.project.apiSecret, "apiUrl": router.baseURL]
        return try PythonSDK.json(Self.script, input: base.merging(input) { _, new in new }, arguments: [step])
    }

    @Test func sdkRunSessionWithOTKitClients() throws { try AudioDeviceTestLock.run { try sdkRunSessionBody() } }

    private func sdkRunSessionBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }

        // The SDK creates a routed session and mints the two tokens locally.
        let created = try #require(try sdk("create", router, ["t1Data": Self.publisherData, "jwtData": Self.moderatorData])
                                   as? [String: String])
        let sessionId = try #require(created["sessionId"])
        let t1 = try #require(created["t1"])
        let jwt = try #require(created["jwt"])
        #expect(t1.hasPrefix("T1=="))
        #expect(jwt.split(separator: ".").count == 3)

        // A joins with the T1 publisher token, B with the JWT moderator token.
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: t1, "\(a.calls)")
        let idA = try #require(sessionA.connection?.connectionId)
        #expect(sessionA.connection?.data == Self.publisherData)
        #expect(sessionA.capabilities == OTSessionCapabilities(canPublish: true, canSubscribe: true, canSignal: true,
                                                                canForceMute: false, canForceDisconnect: false))
        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try sessionB.connect(withToken: jwt)
        #expect(b.wait { $0.count >= 2 }, "\(b.calls)")
        let idB = try #require(sessionB.connection?.connectionId)
        #expect(sessionB.connection?.data == Self.moderatorData)
        #expect(sessionB.capabilities == OTSessionCapabilities(canPublish: true, canSubscribe: true, canSignal: true,
                                                                canForceMute: true, canForceDisconnect: true))
        #expect(a.wait { $0.contains("connectionCreated \(idB)") })

        // A publishes the test pattern; B subscribes and reads the stamped frame numbers.
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, name: "py-pattern", width: 320, height: 240, fps: 30)
        #expect(b.wait { $0.contains("streamCreated \(streamId)") })
        let stream = try #require(sessionB.streams[streamId])
        #expect(stream.connection.connectionId == idA && stream.connection.data == Self.publisherData)
        let (_, render) = try kit.subscribeReadingFrameNumbers(sessionB, b, stream)
        #expect(b.wait(20) { _ in render.seen.count >= 20 })
        let numbers = render.seen
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")

        // send_signal to the session: everyone, from nobody (the server).
        #expect(try sdk("signal", router, ["sessionId": sessionId, "type": "py-all", "data": "héllo from python"]) as? String == "ok")
        let toAll = "signal py-all from nil: héllo from python"
        #expect(a.wait { $0.contains(toAll) } && b.wait { $0.contains(toAll) })
        // send_signal to one connection: only A.
        #expect(try sdk("signal", router, ["sessionId": sessionId, "type": "py-one", "data": "just A", "connectionId": idA])
                as? String == "ok")
        #expect(a.wait { $0.contains("signal py-one from nil: just A") })

        // mute_all: A's publisher is muted at the encoder; both sessions hear muteForced(true).
        #expect(try sdk("muteAll", router, ["sessionId": sessionId]) as? Int == 204)
        #expect(a.wait { $0.contains("publisher muteForced") && $0.contains("muteForced true") }, "\(a.calls)")
        #expect(b.wait { $0.contains("muteForced true") })
        #expect(!publisher.publishAudio)
        #expect(b.wait { _ in !stream.hasAudio }, "the mute is announced as a hasAudio change")
        // disable_force_mute: both hear muteForced(false); A's audio stays off until A turns it on.
        #expect(try sdk("disableForceMute", router, ["sessionId": sessionId]) as? Int == 204)
        #expect(a.wait { $0.contains("muteForced false") } && b.wait { $0.contains("muteForced false") })
        #expect(!publisher.publishAudio)
        publisher.publishAudio = true
        #expect(b.wait { _ in stream.hasAudio })
        // mute_stream: only the publisher is told.
        #expect(try sdk("muteStream", router, ["sessionId": sessionId, "streamId": streamId]) as? Int == 204)
        #expect(a.wait { $0.filter { $0 == "publisher muteForced" }.count == 2 })
        #expect(!publisher.publishAudio)

        // start_archive / stop_archive: the SDK's Archive objects and the clients' events agree.
        let started = try #require(try sdk("startArchive", router, ["sessionId": sessionId, "name": "py-archive"]) as? [String: String])
        let archiveId = try #require(started["id"])
        #expect(started["name"] == "py-archive" && started["status"] == "started" && started["sessionId"] == sessionId, "\(started)")
        #expect(a.wait { $0.contains("archiveStarted \(archiveId) name=py-archive") } && b.wait { $0.contains("archiveStarted \(archiveId) name=py-archive") })
        #expect(a.archiveNames == [archiveId: "py-archive"] && b.archiveNames == [archiveId: "py-archive"], "\(b.archiveNames)")
        let stopped = try #require(try sdk("stopArchive", router, ["archiveId": archiveId]) as? [String: String])
        #expect(stopped["id"] == archiveId && stopped["status"] == "stopped" && stopped["name"] == "py-archive", "\(stopped)")
        #expect(a.wait { $0.contains("archiveStopped \(archiveId)") } && b.wait { $0.contains("archiveStopped \(archiveId)") })

        // force_disconnect of the subscriber's (B's) connection.
        #expect(try sdk("forceDisconnect", router, ["sessionId": sessionId, "connectionId": idB]) as? String == "ok")
        #expect(b.wait { $0.last == "didDisconnect" }, "\(b.calls)")
        #expect(a.wait { $0.contains("connectionDestroyed \(idB)") })
        #expect(sessionB.sessionConnectionStatus == .notConnected)
        Thread.sleep(forTimeInterval: 0.3)  // nothing else may arrive

        // mute_all reaches A as two messages, its stream's mute then the session-wide one,
        // and the delegate calls keep that order.
        #expect(a.calls == ["didConnect", "connectionCreated \(idB)", "publisher streamCreated \(streamId)",
                           "signal py-all from nil: héllo from python", "signal py-one from nil: just A",
                           "publisher muteForced", "muteForced true", "muteForced false", "publisher muteForced",
                           "archiveStarted \(archiveId) name=py-archive", "archiveStopped \(archiveId)", "connectionDestroyed \(idB)"], "\(a.calls)")
        #expect(b.calls == ["didConnect", "connectionCreated \(idA)", "streamCreated \(streamId)", "subscriber connected",
                            "signal py-all from nil: héllo from python", "muteForced true", "muteForced false",
                            "archiveStarted \(archiveId) name=py-archive", "archiveStopped \(archiveId)", "didDisconnect"])

        try sessionA.unpublish(publisher)
        #expect(a.wait { $0.contains("publisher streamDestroyed \(streamId)") })
        sessionA.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
    }
}
