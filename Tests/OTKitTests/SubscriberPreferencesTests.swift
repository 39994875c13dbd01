import Foundation
import OTSignaling
import Testing
@testable import OTKit

/// `preferredResolution` / `preferredFrameRate` reach the router as `subscriberPreferences`:
/// set before subscribing they follow the subscribe, each change is sent once (a repeat is
/// not), clearing them sends "no preference", and after a resume they are said again.
@Suite(.serialized)
struct SubscriberPreferencesTests {
    static let stream = WireStream(streamId: "alice-cam", connectionId: "alice", name: "A", hasAudio: true, hasVideo: true,
                                   videoWidth: 1280, videoHeight: 720, videoType: "camera", creationTime: 3)

    private func preferencesSent(_ router: ScriptedRouter) -> [SubscriberPreferences] {
        router.messages.compactMap { if case .subscriberPreferences(let p) = $0 { return p } else { return nil } }
    }

    @Test func preferencesAreSentOnChangeAndAgainAfterResume() throws {
        let router = ScriptedRouter()
        router.otherStreams = [Self.stream]
        let recorder = DelegateRecorder()
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        settings.heartbeatInterval = 0.2
        settings.reconnectRetryInterval = 0.1
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("didConnect") })

        let subscriberStream = try #require(session.streams["alice-cam"])

        let subscriber = try #require(OTSubscriberKit(stream: subscriberStream, delegate: recorder))
        subscriber.preferredResolution = OTVideoDimensions(width: 320, height: 180)
        #expect(preferencesSent(router).isEmpty, "nothing is sent before subscribing")
        try session.subscribe(subscriber)
        #expect(recorder.wait { $0.contains("subscriber connected") })
        let id = "sub-alice-cam"
        #expect(recorder.wait { _ in preferencesSent(router).count == 1 })
        #expect(preferencesSent(router) == [SubscriberPreferences(subscriberId: id, preferredWidth: 320, preferredHeight: 180, preferredFrameRate: nil)])

        subscriber.preferredFrameRate = 7.5
        subscriber.preferredFrameRate = 7.5  // the same again: not sent again
        subscriber.preferredResolution = nil
        subscriber.preferredFrameRate = 0
        #expect(recorder.wait { _ in preferencesSent(router).count >= 4 })
        #expect(preferencesSent(router) == [
            SubscriberPreferences(subscriberId: id, preferredWidth: 320, preferredHeight: 180, preferredFrameRate: nil),
            SubscriberPreferences(subscriberId: id, preferredWidth: 320, preferredHeight: 180, preferredFrameRate: 7.5),
            SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: 7.5),
            SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: nil),
        ])

        // A resumed session says the current preferences once more.
        subscriber.preferredFrameRate = 15
        #expect(recorder.wait { _ in preferencesSent(router).count >= 5 })
        router.dropAll()
        #expect(recorder.wait { $0.contains("didReconnect") })
        #expect(recorder.wait { _ in preferencesSent(router).count >= 6 })
        let fifteen = SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: 15)
        #expect(Array(preferencesSent(router).dropFirst(4)) == [fifteen, fifteen])
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }
}
