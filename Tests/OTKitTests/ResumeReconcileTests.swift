import Foundation
import OTSignaling
import Testing
@testable import OTKit

/// The client's half of issue 15 point 4 against a router played by the test: the
/// resume reply reconciles connections, streams, archive and mute state; replayed copies
/// are handled once; a signal unconfirmed when the path is lost is sent once more.
@Suite(.serialized)
struct ResumeReconcileTests {
    private func makeSession(_ router: ScriptedRouter, _ recorder: DelegateRecorder, heartbeatTimeout: Double = 3) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        settings.heartbeatInterval = 0.2
        settings.heartbeatTimeout = heartbeatTimeout
        settings.reconnectRetryInterval = 0.1
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        return session
    }

    private static func connection(_ id: String) -> WireConnection { WireConnection(connectionId: id, creationTime: 1, data: nil) }
    private static func stream(_ id: String, of connection: String) -> WireStream {
        WireStream(streamId: id, connectionId: connection, name: id, hasAudio: true, hasVideo: true, videoWidth: 640, videoHeight: 480,
                   videoType: "camera", creationTime: 2)
    }

    /// A router that replays nothing: what changed while away comes from the reply, in
    /// the order the router would have sent it.
    @Test func aResumeReplyWithoutReplayReconcilesConnectionsStreamsArchiveAndMute() throws {
        let router = ScriptedRouter()
        router.otherConnections = [Self.connection("alice"), Self.connection("bob")]
        router.otherStreams = [Self.stream("bob-cam", of: "bob")]
        router.archive = WireArchive(id: "old-archive", name: "before")
        let recorder = DelegateRecorder()
        let session = try makeSession(router, recorder)
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("archiveStarted old-archive name=before") })

        router.unreachable = true
        router.dropAll()
        #expect(recorder.wait { $0.contains("didBeginReconnecting") })
        router.otherConnections = [Self.connection("alice"), Self.connection("carol")]
        router.otherStreams = [Self.stream("carol-cam", of: "carol")]
        router.archive = WireArchive(id: "new-archive", name: "after")
        router.forceMuteAll = true
        router.unreachable = false
        #expect(recorder.wait { $0.last == "muteForced true" }, "\(recorder.calls)")
        #expect(Array(recorder.calls.drop { $0 != "didBeginReconnecting" })
                == ["didBeginReconnecting", "didReconnect", "streamDestroyed bob-cam", "connectionDestroyed bob", "connectionCreated carol",
                    "streamCreated carol-cam", "archiveStopped old-archive", "archiveStarted new-archive name=after", "muteForced true"])
        session.disconnect()
    }

    /// A router that replays: copies of events already handled (numbered at or below the
    /// last) are dropped; the reconciliation after the replay finds nothing to add.
    @Test func replayedEventsAreHandledOnceAndAcknowledged() throws {
        let router = ScriptedRouter()
        let recorder = DelegateRecorder()
        let session = try makeSession(router, recorder)
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("didConnect") })
        router.push(.connectionCreated(Self.connection("carol")), seq: 10)
        router.push(.signal(type: "t", data: "a", from: "carol"), seq: 11)
        #expect(recorder.wait { $0.contains("signal t from carol: a") })
        #expect(recorder.wait { _ in router.messages.contains(.acknowledgeEvents(through: 11)) }, "acknowledged with the heartbeat")

        router.unreachable = true
        router.dropAll()
        #expect(recorder.wait { $0.contains("didBeginReconnecting") })
        router.otherConnections = [Self.connection("carol")]
        router.replayedEvents = 2
        router.unreachable = false
        #expect(recorder.wait { $0.contains("didReconnect") })
        let resume = router.messages.compactMap { message -> ConnectRequest? in
            if case .connect(let request) = message, request.resumeConnectionId != nil { return request } else { return nil }
        }.last
        #expect(resume?.eventSeq == 11, "resumes from the last event handled")
        router.push(.signal(type: "t", data: "a", from: "carol"), seq: 11)  // a copy
        router.push(.signal(type: "t", data: "b", from: "carol"), seq: 12)
        #expect(recorder.wait { $0.contains("signal t from carol: b") })
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Array(recorder.calls.drop { $0 != "didBeginReconnecting" }) == ["didBeginReconnecting", "didReconnect", "signal t from carol: b"])
        #expect(recorder.calls.filter { $0 == "signal t from carol: a" }.count == 1)
        session.disconnect()
    }

    /// The path dies silently: the signal sent meanwhile gets no reply; when the heartbeat
    /// finds the loss it is sent once more after the resume, with the same id. One sent
    /// with `retryAfterReconnect: false` is not.
    @Test func aSignalUnconfirmedWhenThePathIsLostIsSentOnceMoreAfterTheResume() throws {
        let router = ScriptedRouter()
        let recorder = DelegateRecorder()
        router.graceMilliseconds = 20_000
        let session = try makeSession(router, recorder, heartbeatTimeout: 1)
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("didConnect") })
        try session.signal(type: "before", string: "confirmed")
        #expect(recorder.wait { _ in router.signalsReceived().count == 1 })
        router.silent = true
        try session.signal(type: "unconfirmed", string: "x")
        try session.signal(type: "noRetry", string: "y", retryAfterReconnect: false)
        #expect(recorder.wait { $0.contains("didBeginReconnecting") })
        router.silent = false
        #expect(recorder.wait { $0.contains("didReconnect") })
        #expect(recorder.wait { _ in router.signalsReceived().count == 2 })
        Thread.sleep(forTimeInterval: 0.3)
        let signals = router.signalsReceived()
        #expect(signals.map(\.type) == ["before", "unconfirmed"], "sent again once; the noRetry one is not")
        #expect(signals.map(\.id) == [1, 2], "with the id it first had")
        #expect(!recorder.calls.contains { $0.hasPrefix("didFail") })
        session.disconnect()
    }

    /// The router drops a signal whose id is at or below the last it delivered, so ids must
    /// rise in the order signals reach it, even when the app signals from several threads.
    @Test func signalIdsRiseInTheOrderTheRouterReceivesThem() throws {
        let router = ScriptedRouter()
        let recorder = DelegateRecorder()
        let session = try makeSession(router, recorder)
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("didConnect") })
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for n in 0..<250 { try? session.signal(type: "t\(thread)", string: "\(n)") }
        }
        #expect(recorder.wait { _ in router.signalsReceived().count == 4000 })
        let ids = router.signalsReceived().compactMap(\.id)
        #expect(ids == Array(1...4000), "one id each, rising in arrival order")
        session.disconnect()
    }
}
