import Foundation
import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// Audio fallback as the app sees it, against a scripted router: the router's
/// `subscriberQuality` events become OpenTok's subscriber delegate calls in order
/// (repeats, out-of-order, unknown and foreign events dropped); the publisher pipeline's
/// fallback events (through the adapter the integration connects) become the publisher
/// calls; `publishVideo` gives `.publisherPropertyChanged`; the settings reach the wire.
@Suite(.serialized)
struct AudioFallbackEventTests {
    static let stream = WireStream(streamId: "alice-cam", connectionId: "alice", name: "A", hasAudio: true, hasVideo: true,
                                   videoWidth: 640, videoHeight: 480, videoType: "camera", creationTime: 3)

    private func connectedSession(_ router: ScriptedRouter, _ recorder: DelegateRecorder) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.transportFactory = router.factory()
        let session = try #require(OTSession(apiKey: "123", sessionId: "1_s", delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        try session.connect(withToken: "T1==token")
        #expect(recorder.wait { $0.contains("didConnect") })
        return session
    }

    private func quality(_ state: String, subscriber: String = "sub-alice-cam") -> ServerMessage {
        .subscriberQuality(SubscriberQualityEvent(subscriberId: subscriber, streamId: "alice-cam", state: state))
    }

    @Test func subscriberQualityEventsBecomeOpenTokCallsInOrder() throws {
        let router = ScriptedRouter()
        router.otherStreams = [Self.stream]
        let recorder = DelegateRecorder()
        let session = try connectedSession(router, recorder)
        let subscriberStream = try #require(session.streams["alice-cam"])
        let subscriber = try #require(OTSubscriberKit(stream: subscriberStream, delegate: recorder))
        try session.subscribe(subscriber)
        #expect(recorder.wait { $0.contains("subscriber connected") })

        // A full cycle with noise: a repeated warning, an "enabled" that never was
        // disabled, a state nobody knows, an event for someone else's subscriber.
        for state in ["warning", "warning", "enabled", "warningLifted", "bogus", "warning", "disabled", "disabled",
                      "warningLifted", "enabled", "enabled"] {
            router.push(quality(state))
        }
        router.push(quality("warning", subscriber: "sub-of-someone-else"))
        router.push(quality("warning"))
        router.push(quality("disabled"))  // straight from warning to disabled again
        router.push(quality("enabled"))
        router.push(.signal(type: "end", data: "", from: nil))  // a marker: everything before it was handled
        #expect(recorder.wait { $0.contains { $0.hasPrefix("signal end") } })
        let fallback = recorder.calls.filter { $0.hasPrefix("subscriber video") }
        #expect(fallback == ["subscriber videoDisableWarning", "subscriber videoDisableWarningLifted",
                             "subscriber videoDisableWarning", "subscriber videoDisabled 3", "subscriber videoEnabled 3",
                             "subscriber videoDisableWarning", "subscriber videoDisabled 3", "subscriber videoEnabled 3"])
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }

    @Test func publisherFallbackEventsBecomeOpenTokCallsOnlyWhenEnabled() throws {
        for enabled in [true, false] {
            let router = ScriptedRouter()
            let recorder = DelegateRecorder()
            let session = try connectedSession(router, recorder)
            let settings = OTPublisherKitSettings()
            settings.videoTrack = false
            settings.audioTrack = false
            settings.publisherAudioFallbackEnabled = enabled
            let publisher = OTPublisherKit(delegate: recorder, settings: settings)
            try session.publish(publisher)
            #expect(recorder.wait { $0.contains("publisher streamCreated own-stream") })

            // What PublisherPipeline.onVideoQualityEvent hands over from the pipeline thread.
            let events: [AudioFallbackEvent] = [.warning, .warningLifted, .warningLifted, .warning,
                                                .videoDisabled(reason: .qualityChanged), .warning,
                                                .videoEnabled(reason: .qualityChanged), .videoEnabled(reason: .qualityChanged)]
            for event in events { publisher.videoQualityEvent(event) }
            publisher.publishVideo = false
            publisher.publishVideo = true
            #expect(recorder.wait { $0.contains("publisher videoEnabled 1") })
            let calls = recorder.calls.filter { $0.hasPrefix("publisher video") }
            let fallback = ["publisher videoDisableWarning", "publisher videoDisableWarningLifted", "publisher videoDisableWarning",
                            "publisher videoDisabled 3", "publisher videoEnabled 3"]
            #expect(calls == (enabled ? fallback : []) + ["publisher videoDisabled 1", "publisher videoEnabled 1"],
                    "publisherAudioFallbackEnabled = \(enabled)")
            session.disconnect()
            #expect(recorder.wait { $0.last == "didDisconnect" })
        }
    }

    @Test func fallbackSettingsFollowOpenTokDefaultsAndReachThePublishRequest() throws {
        let defaults = OTPublisherKitSettings()
        #expect(defaults.publisherAudioFallbackEnabled == false)
        #expect(defaults.subscriberAudioFallbackEnabled == true)

        func announced(_ configure: (OTPublisherKitSettings) -> Void, videoType: OTStreamVideoType = .custom) -> PublishRequest {
            let settings = OTPublisherKitSettings()
            configure(settings)
            let publisher = OTPublisherKit(delegate: nil, settings: settings)
            publisher.videoType = videoType
            return publisher.makePublishRequest()
        }
        #expect(announced({ _ in }).subscriberAudioFallback == true)
        #expect(announced({ _ in }, videoType: .screen).subscriberAudioFallback == false, "off by default for screen sharing")
        #expect(announced({ $0.subscriberAudioFallbackEnabled = true }, videoType: .screen).subscriberAudioFallback == true)
        #expect(announced({ $0.subscriberAudioFallbackEnabled = false }).subscriberAudioFallback == false)
    }

    @Test func encodingPreferencesReachThePublisher() throws {
        let router = ScriptedRouter()
        let recorder = DelegateRecorder()
        let session = try connectedSession(router, recorder)
        let settings = OTPublisherKitSettings()
        settings.videoTrack = false
        settings.audioTrack = false
        let publisher = OTPublisherKit(delegate: recorder, settings: settings)
        try session.publish(publisher)
        #expect(recorder.wait { $0.contains("publisher streamCreated own-stream") })
        router.push(.encodingPreferences(EncodingPreferences(streamId: "another-stream", maxWidth: 1, maxHeight: 1, maxFrameRate: 1)))
        router.push(.encodingPreferences(EncodingPreferences(streamId: "own-stream", maxWidth: 320, maxHeight: 180, maxFrameRate: 7.5)))
        let expected = EncodingPreferences(streamId: "own-stream", maxWidth: 320, maxHeight: 180, maxFrameRate: 7.5)
        #expect(recorder.wait { _ in publisher.lock.withLock { publisher.lastEncodingPreferences } == expected })
        session.disconnect()
        #expect(recorder.wait { $0.last == "didDisconnect" })
    }
}
