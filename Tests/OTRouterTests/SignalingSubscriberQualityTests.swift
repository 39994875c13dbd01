import Foundation
@testable import OTRouter
@testable import OTSignaling
import Testing

/// The signaling side of the SFU's adaptation in routed sessions: a subscriber's
/// preferences reach the media plane's layer selection, the media plane's audio-fallback
/// decisions reach that subscriber (and nobody else) as `subscriberQuality`, and a
/// publisher's simulcast layer count reaches the media plane.
@Suite struct SignalingSubscriberQualityTests {
    @Test func preferencesGoToTheMediaPlaneAndQualityEventsToTheSubscriber() throws {
        let h = try Harness()
        let (publisher, _) = try h.join()
        let (viewer, _) = try h.join(.subscriber)
        let (other, _) = try h.join(.subscriber)
        let stream = try h.publish(publisher)
        let streamId = stream.stream.streamId
        #expect(h.media.calls.withLock { $0.simulcastLayers[streamId] } == 1, "no simulcast asked: one encoding")
        guard case .subscribed(let subscribed)? = h.request(viewer, .subscribe(SubscribeRequest(streamId: streamId))) else {
            Issue.record("no subscription"); return
        }
        let id = subscribed.subscriberId
        let preferences = SubscriberPreferences(subscriberId: id, preferredWidth: 320, preferredHeight: 180, preferredFrameRate: 7.5)
        #expect(h.request(viewer, .subscriberPreferences(preferences)) == .ok)
        #expect(h.media.calls.withLock { $0.preferences[id] } == [320, 180, 7.5])

        h.media.reportQuality(SubscriberQualityEvent(subscriberId: id, streamId: streamId, state: "warning"))
        h.media.reportQuality(SubscriberQualityEvent(subscriberId: id, streamId: streamId, state: "disabled"))
        h.media.reportQuality(SubscriberQualityEvent(subscriberId: "gone", streamId: streamId, state: "disabled"))
        let states = viewer.events.compactMap { message -> String? in
            guard case .subscriberQuality(let event) = message, event.subscriberId == id else { return nil }
            return event.state
        }
        #expect(states == ["warning", "disabled"])
        #expect(!other.events.contains { if case .subscriberQuality = $0 { return true } else { return false } })
        #expect(!publisher.events.contains { if case .subscriberQuality = $0 { return true } else { return false } })
    }
}
