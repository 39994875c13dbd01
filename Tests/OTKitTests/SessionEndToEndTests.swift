import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// OTKit sessions against the real router in this process (WebSocket signaling on
/// libwebsockets, the SFU forwarding SRTP): connect, publish a custom-capturer test
/// pattern with the tone, subscribe from another session, read the stamped frame
/// numbers from the decoded pictures, signal both ways, leave; each session's delegate
/// calls are asserted exactly and in order.
@Suite(.serialized)
struct SessionEndToEndTests {
    static let project = ProjectCredentials(apiKey: "4711", apiSecret: "0123456789abcdef0123456789abcdef01234567")

    private let kit = SessionTestKit(project: Self.project)

    @Test func publishSubscribeSignalAndLeave() throws { try AudioDeviceTestLock.run { try publishSubscribeSignalAndLeaveBody() } }

    private func publishSubscribeSignalAndLeaveBody() throws {
        // One custom audio device for the process (as an app would install): it captures a
        // 660 Hz tone for A's publisher and renders B's subscriber.
        let device = ToneLoopDevice(frequency: 660)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)

        // A connects and publishes the test pattern (custom capturer) with the default audio.
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher, data: "name=A"))
        let idA = try #require(sessionA.connection?.connectionId)
        #expect(sessionA.connection?.data == "name=A")
        #expect(sessionA.capabilities?.canPublish == true)
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, name: "pattern", width: 320, height: 240, fps: 30)

        // B connects: A's connection and stream are announced after didConnect.
        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try sessionB.connect(withToken: try kit.token(sessionId, .subscriber))
        #expect(b.wait { $0.count >= 3 })
        #expect(b.calls == ["didConnect", "connectionCreated \(idA)", "streamCreated \(streamId)"])
        let idB = try #require(sessionB.connection?.connectionId)
        #expect(a.wait { $0.contains("connectionCreated \(idB)") })
        #expect(sessionB.capabilities?.canPublish == false)
        let stream = try #require(sessionB.streams[streamId])
        #expect(stream.name == "pattern" && stream.hasVideo && stream.videoDimensions == OTVideoDimensions(width: 320, height: 240))

        // B subscribes; the decoded pictures carry increasing frame numbers.
        let (_, render) = try kit.subscribeReadingFrameNumbers(sessionB, b, stream)
        #expect(b.wait(20) { _ in render.seen.count >= 30 })
        let numbers = render.seen
        #expect(numbers.count >= 30)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")
        // The tone A's device captured is what B's device plays.
        #expect(b.wait(20) { _ in device.renderedSamples.count >= 48_000 * 2 })
        let played = Array(device.renderedSamples.suffix(48_000))
        #expect(AudioAnalysis.rms(played) > 1000, "sound, not silence")
        #expect(abs((AudioAnalysis.dominantFrequency(samples: played, sampleRate: 48_000) ?? 0) - 660) < 2)

        // Signals: B to everyone, A to B only.
        try sessionB.signal(type: "chat", string: "hello")
        #expect(a.wait { $0.contains("signal chat from \(idB): hello") })
        try sessionA.signal(type: "direct", string: "only-b", connection: OTConnection(connectionId: idB, creationTime: Date(), data: nil))
        #expect(b.wait { $0.contains("signal direct from \(idA): only-b") })

        // B leaves, then A.
        sessionB.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
        #expect(a.wait { $0.contains("connectionDestroyed \(idB)") })
        try sessionA.unpublish(publisher)
        #expect(a.wait { $0.contains("publisher streamDestroyed \(streamId)") })
        sessionA.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })

        #expect(a.calls == ["didConnect", "publisher streamCreated \(streamId)", "connectionCreated \(idB)",
                            "signal chat from \(idB): hello", "connectionDestroyed \(idB)",
                            "publisher streamDestroyed \(streamId)", "didDisconnect"])
        #expect(b.calls == ["didConnect", "connectionCreated \(idA)", "streamCreated \(streamId)", "subscriber connected",
                            "signal chat from \(idB): hello", "signal direct from \(idA): only-b", "didDisconnect"])
    }

    @Test func badTokenIs1004AndNoConnection() throws { try AudioDeviceTestLock.run { try badTokenIs1004AndNoConnectionBody() } }

    private func badTokenIs1004AndNoConnectionBody() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let forged = ProjectCredentials(apiKey: Self.project.apiKey, apiSecret: "ffffffffffffffffffffffffffffffffffffffff")
        let recorder = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, recorder)
        try session.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: forged))
        #expect(recorder.wait { !$0.isEmpty })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(recorder.calls == ["didFail 1004"])
        #expect(session.sessionConnectionStatus == .failed, "a refused connect ends failed (OTSessionConnectionStatusFailed)")
        #expect(session.connection == nil)
    }

    @Test func moderatorMutesAndDisconnectsOthersDoNot() throws { try AudioDeviceTestLock.run { try moderatorMutesAndDisconnectsOthersDoNotBody() } }

    private func moderatorMutesAndDisconnectsOthersDoNotBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let idA = try #require(sessionA.connection?.connectionId)
        let (publisher, streamId) = try kit.publishAudioOnly(sessionA, a)

        let m = DelegateRecorder()
        let moderator = try kit.makeSession(router, sessionId, m)
        try moderator.connect(withToken: try kit.token(sessionId, .moderator))
        #expect(m.wait { $0.contains("streamCreated \(streamId)") })
        #expect(moderator.capabilities?.canForceMute == true && moderator.capabilities?.canForceDisconnect == true)
        do { try sessionA.forceMuteAll(); Issue.record("publisher muted all") } catch { #expect(error.code == 1540) }
        do { try sessionA.forceDisconnect(OTConnection(connectionId: "x", creationTime: Date(), data: nil)); Issue.record("publisher disconnected") } catch {
            #expect(error.code == 1520)
        }

        let stream = try #require(moderator.streams[streamId])
        try moderator.forceMuteStream(stream)
        #expect(a.wait { $0.contains("publisher muteForced") })
        #expect(!publisher.publishAudio)
        #expect(m.wait { _ in stream.hasAudio == false }, "the mute is announced as a hasAudio change")
        // The audio stops at the encoder: no packets leave, the dropped-frames counter grows.
        Thread.sleep(forTimeInterval: 0.2)
        let sentBefore = publisher.counters?.audio.packets
        let droppedBefore = publisher.counters?.droppedAudio ?? 0
        Thread.sleep(forTimeInterval: 0.5)
        #expect(publisher.counters?.audio.packets == sentBefore)
        #expect((publisher.counters?.droppedAudio ?? 0) > droppedBefore)

        try moderator.forceMuteAll()
        #expect(a.wait { $0.contains("muteForced true") })
        try moderator.disableForceMute()
        #expect(a.wait { $0.contains("muteForced false") })

        try moderator.forceDisconnect(try #require(sessionA.connection))
        #expect(a.wait { $0.last == "didDisconnect" })
        #expect(m.wait { $0.contains("connectionDestroyed \(idA)") })
        #expect(m.calls.contains("streamDestroyed \(streamId)"))
        #expect(sessionA.sessionConnectionStatus == .notConnected)
        moderator.disconnect()
        #expect(m.wait { $0.last == "didDisconnect" })
    }

    @Test func cutPathReconnectsDeliversQueuedSignalsOnceAndResumesMedia() throws { try AudioDeviceTestLock.run { try cutPathReconnectsDeliversQueuedSignalsOnceAndResumesMediaBody() } }

    private func cutPathReconnectsDeliversQueuedSignalsOnceAndResumesMediaBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter(grace: 20, silence: 1.5)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        // A's signaling goes through a TCP relay and its media through impairment proxies:
        // both can black-hole A's network path.
        let cut = try CutPath(router)
        defer { cut.stop() }
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut, heartbeatTimeout: 1.5)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let idA = try #require(sessionA.connection?.connectionId)
        let (_, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 30)

        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try sessionB.connect(withToken: try kit.token(sessionId, .subscriber))
        #expect(b.wait { $0.contains("streamCreated \(streamId)") })
        let idB = try #require(sessionB.connection?.connectionId)
        let subscriberStream = try #require(sessionB.streams[streamId])
        let subscriber = try #require(OTSubscriber(stream: subscriberStream, delegate: b))
        let render = FrameNumberRender()
        subscriber.videoRender = render
        try sessionB.subscribe(subscriber)
        #expect(b.wait(20) { _ in render.seen.count >= 10 })

        #expect(cut.proxies.count == 1, "the publisher's media leg goes through a proxy")
        cut.setCut(true)
        let cutAt = Date()
        #expect(a.wait { $0.contains("didBeginReconnecting") })
        #expect(sessionA.sessionConnectionStatus == .reconnecting)
        try sessionA.signal(type: "gap", string: "once")
        // OpenTok: with retryAfterReconnect false a signal made while reconnecting is silently not sent.
        try sessionA.signal(type: "gap", string: "never", retryAfterReconnect: false)
        #expect(b.wait { $0.contains("subscriber disconnected") }, "the router reports A's stream interrupted")
        let framesInCut = render.seen.count
        Thread.sleep(forTimeInterval: max(0, 5 - Date().timeIntervalSince(cutAt)))  // a 5 s cut
        #expect(render.seen.count <= framesInCut + 2, "no media through the cut")
        cut.setCut(false)
        #expect(a.wait(20) { $0.contains("didReconnect") })
        #expect(sessionA.connection?.connectionId == idA)
        #expect(b.wait { $0.contains("signal gap from \(idA): once") })
        #expect(b.wait { $0.contains("subscriber reconnected") })
        let seenBefore = render.seen.count
        #expect(b.wait(20) { _ in render.seen.count >= seenBefore + 10 }, "media resumes")
        Thread.sleep(forTimeInterval: 0.5)
        #expect(b.calls.filter { $0.hasPrefix("signal gap") } == ["signal gap from \(idA): once"])
        #expect(!b.calls.contains { $0.hasPrefix("streamDestroyed") || $0.hasPrefix("connectionDestroyed") })
        #expect(a.calls.filter { !$0.hasPrefix("signal") } == ["didConnect", "publisher streamCreated \(streamId)",
                                                                 "connectionCreated \(idB)", "didBeginReconnecting", "didReconnect"])
        sessionA.disconnect()
        sessionB.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    /// A cut longer than the grace period: A fails with 1022 then disconnects; the others
    /// see A's stream and connection destroyed (networkDisconnected).
    @Test func cutLongerThanTheGraceEndsTheSession() throws { try AudioDeviceTestLock.run { try cutLongerThanTheGraceEndsTheSessionBody() } }

    private func cutLongerThanTheGraceEndsTheSessionBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter(grace: 3, silence: 1)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let cut = try CutPath(router)
        defer { cut.stop() }
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut, heartbeatTimeout: 1)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let idA = try #require(sessionA.connection?.connectionId)
        let (_, streamId) = try kit.publishAudioOnly(sessionA, a)

        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try sessionB.connect(withToken: try kit.token(sessionId, .subscriber))
        #expect(b.wait { $0.contains("streamCreated \(streamId)") })

        cut.setCut(true)
        #expect(a.wait(30) { $0.last == "didDisconnect" })
        let idB = try #require(sessionB.connection?.connectionId)
        #expect(a.calls == ["didConnect", "publisher streamCreated \(streamId)", "connectionCreated \(idB)", "didBeginReconnecting", "didFail 1022",
                            "publisher streamDestroyed \(streamId)", "didDisconnect"])
        #expect(b.wait(30) { $0.contains("connectionDestroyed \(idA)") })
        #expect(b.calls.suffix(2) == ["streamDestroyed \(streamId)", "connectionDestroyed \(idA)"])
        sessionB.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    /// reportIssue returns at once the id the router stores the report under, with the
    /// client's stats and logs (read back over the REST API once the router has it).
    @Test func reportIssueIsStoredWithStatsAndLogs() throws { try AudioDeviceTestLock.run { try reportIssueBody() } }

    private func reportIssueBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, a)
        try kit.connect(session, a, token: try kit.token(sessionId, .publisher))
        _ = try kit.publishAudioOnly(session, a)
        Thread.sleep(forTimeInterval: 0.5)

        let issueId = try session.reportIssue()
        func fetch() throws -> (status: Int, headers: [String: String], body: [UInt8]) {
            try HTTPClient.request("GET", router.baseURL + "/v2/project/\(Self.project.apiKey)/issues/\(issueId)",
                                   headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project)])
        }
        var response = try fetch()
        let deadline = Date().addingTimeInterval(10)
        while response.status == 404, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            response = try fetch()
        }
        #expect(response.status == 200)
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(body.contains("publisher.audio.packetsSent="))
        #expect(body.contains("connected as"), "the client's log lines")
        session.disconnect()
        #expect(a.wait { $0.last == "didDisconnect" })
    }
}
