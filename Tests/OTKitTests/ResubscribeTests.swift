import Foundation
import OTSignaling
import Testing
@testable import OTKit

/// A subscriber whose leg the router ends with `mediaFailed` + `resubscribe` (its serving
/// router went away with the old socket) subscribes again by itself, against a router
/// played over the real wire codec: the app hears only disconnected/reconnected, held back
/// on resume for a leg another router served; failed re-subscribes stop after three.
@Suite(.serialized)
struct ResubscribeTests {
    @Test func aLostNodeServedLegIsMadeAgainThenGivenUpAfterThreeFailures() throws {
        let router = ScriptedRouter()
        router.otherStreams = [WireStream(streamId: "alice-cam", connectionId: "alice", name: "A", hasAudio: true, hasVideo: true,
                                          videoWidth: 640, videoHeight: 480, videoType: "camera", creationTime: 3)]
        router.subscribeMediaNode = "node-1"
        let recorder = DelegateRecorder()
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        settings.heartbeatInterval = 0.2
        settings.reconnectRetryInterval = 0.1
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("streamCreated alice-cam") })
        let stream = try #require(session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
        try session.subscribe(subscriber)
        #expect(recorder.wait { $0.contains("subscriber connected") })
        func subscribes() -> Int { router.messages.filter { if case .subscribe = $0 { true } else { false } }.count }
        func events() -> [String] { recorder.calls.filter { $0.hasPrefix("subscriber ") } }

        // The socket drops and resumes: the leg node-1 served is gone, so no reconnect yet.
        router.dropAll()
        #expect(recorder.wait { $0.contains("didReconnect") })
        #expect(!recorder.wait(1) { $0.contains("subscriber reconnected") }, "reported reconnected before the new leg")
        // The owner says so; the subscriber subscribes again (now served by the owner).
        router.subscribeMediaNode = nil
        router.push(.mediaFailed(MediaFailure(streamId: "alice-cam", subscriberId: "sub-alice-cam", message: "node-1 went away",
                                              resubscribe: true)))
        #expect(recorder.wait { $0.contains("subscriber reconnected") }, "\(recorder.calls)")
        #expect(events() == ["subscriber connected", "subscriber disconnected", "subscriber reconnected"])
        #expect(subscribes() == 2 && subscriber.subscriberId == "sub-alice-cam")

        // Lost again, and every re-subscribe is refused: three tries, then the failure.
        router.subscribeError = ErrorReply(code: 1604, message: "unable to subscribe")
        router.push(.mediaFailed(MediaFailure(streamId: "alice-cam", subscriberId: "sub-alice-cam", message: "node-2 went away",
                                              resubscribe: true)))
        #expect(recorder.wait(30) { $0.contains("subscriber didFail 1604") }, "\(recorder.calls)")
        #expect(events() == ["subscriber connected", "subscriber disconnected", "subscriber reconnected",
                             "subscriber disconnected", "subscriber didFail 1604"])
        #expect(subscribes() == 5)
        #expect(session.resubscribes.attempts.load(ordering: .relaxed) == 4 && session.resubscribes.restored.load(ordering: .relaxed) == 1
                && session.resubscribes.givenUp.load(ordering: .relaxed) == 1)
        #expect(!session.lock.withLock { session.state.subscribers.contains { $0 === subscriber } })

        // Without the mark a subscriber's `mediaFailed` is the failure it always was (1600).
        router.subscribeError = nil
        let again = try #require(OTSubscriber(stream: stream, delegate: recorder))
        try session.subscribe(again)
        #expect(recorder.wait { $0.filter { $0 == "subscriber connected" }.count == 2 })
        router.push(.mediaFailed(MediaFailure(streamId: "alice-cam", subscriberId: "sub-alice-cam", message: "DTLS timed out")))
        #expect(recorder.wait { $0.contains("subscriber didFail 1600") })
        #expect(subscribes() == 6)
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }
}
