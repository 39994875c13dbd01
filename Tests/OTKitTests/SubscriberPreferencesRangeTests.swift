import Foundation
import OTSignaling
import Testing
@testable import OTKit

/// `preferredFrameRate` / `preferredResolution` take any value an app sets without
/// trapping, and what reaches the router is inside `ClientMessageLimits`: huge means the
/// most there is (1000 fps, 16384 px), NaN, zero or negative means no preference.
@Suite(.serialized)
struct SubscriberPreferencesRangeTests {
    @Test func hugeAndNaNPreferencesAreClampedBeforeTheyAreSent() throws {
        let router = ScriptedRouter()
        router.otherStreams = [SubscriberPreferencesTests.stream]
        let recorder = DelegateRecorder()
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("didConnect") })
        let subscriberStream = try #require(session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriberKit(stream: subscriberStream, delegate: recorder))
        try session.subscribe(subscriber)
        #expect(recorder.wait { $0.contains("subscriber connected") })
        let id = "sub-alice-cam"
        func sent() -> [SubscriberPreferences] {
            router.messages.compactMap { if case .subscriberPreferences(let p) = $0 { return p } else { return nil } }
        }
        let most = ClientMessageLimits.maximumDimension
        let steps: [(set: () -> Void, expected: SubscriberPreferences)] = [
            ({ subscriber.preferredFrameRate = .greatestFiniteMagnitude },
             SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: 1000)),
            ({ subscriber.preferredFrameRate = .nan },
             SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: nil)),
            ({ subscriber.preferredFrameRate = .infinity },
             SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: 1000)),
            ({ subscriber.preferredFrameRate = -.infinity },
             SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: nil)),
            ({ subscriber.preferredResolution = OTVideoDimensions(width: .max, height: .max) },
             SubscriberPreferences(subscriberId: id, preferredWidth: most, preferredHeight: most, preferredFrameRate: nil)),
            ({ subscriber.preferredResolution = OTVideoDimensions(width: .min, height: 480) },
             SubscriberPreferences(subscriberId: id, preferredWidth: nil, preferredHeight: nil, preferredFrameRate: nil)),
        ]
        for (index, step) in steps.enumerated() {
            step.set()
            #expect(recorder.wait { _ in sent().count >= index + 1 }, "step \(index) sent")
            #expect(sent().last == step.expected, "step \(index)")
        }
        // Every message sent is one the router's codec accepts.
        for preferences in sent() {
            let text = SignalingCodec.encode(.subscriberPreferences(preferences), requestId: 1)
            #expect((try? SignalingCodec.decodeClientMessage(text)) != nil, "\(text)")
        }
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }
}
