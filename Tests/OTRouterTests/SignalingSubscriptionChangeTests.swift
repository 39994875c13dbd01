import Foundation
@testable import OTRouter
@testable import OTSignaling
import Testing

/// `subscriptionChanged`: a client turns a kind on or off on its own subscription and the
/// media plane is told; anyone else's subscription is 1112.
@Suite struct SignalingSubscriptionChangeTests {
    @Test func ownSubscriptionChangesReachTheMediaPlane() throws {
        let h = try Harness()
        let (publisher, _) = try h.join()
        let (viewer, _) = try h.join(.subscriber)
        let (other, _) = try h.join(.subscriber)
        let stream = try h.publish(publisher)
        guard case .subscribed(let subscribed)? = h.request(viewer, .subscribe(SubscribeRequest(streamId: stream.stream.streamId,
                                                                                                subscribeToAudio: false))) else {
            Issue.record("no subscription"); return
        }
        let id = subscribed.subscriberId
        #expect(h.request(viewer, .subscriptionChanged(SubscriptionChange(subscriberId: id, subscribeToAudio: nil, subscribeToVideo: false))) == .ok)
        #expect(h.media.forwarding[id].map { [$0.audio, $0.video] } == [false, false], "unchanged audio stays as subscribed (off)")
        #expect(h.request(viewer, .subscriptionChanged(SubscriptionChange(subscriberId: id, subscribeToAudio: true, subscribeToVideo: nil))) == .ok)
        #expect(h.media.forwarding[id].map { [$0.audio, $0.video] } == [true, false])

        guard case .error(let foreign)? = h.request(other, .subscriptionChanged(SubscriptionChange(subscriberId: id, subscribeToAudio: false,
                                                                                                  subscribeToVideo: false))) else {
            Issue.record("another connection changed the subscription"); return
        }
        #expect(foreign.code == 1112)
        guard case .error(let unknown)? = h.request(viewer, .subscriptionChanged(SubscriptionChange(subscriberId: "nope", subscribeToAudio: true,
                                                                                                   subscribeToVideo: true))) else {
            Issue.record("unknown subscriber accepted"); return
        }
        #expect(unknown.code == 1112)
        #expect(h.media.forwarding[id].map { [$0.audio, $0.video] } == [true, false], "refused requests change nothing")
    }
}
