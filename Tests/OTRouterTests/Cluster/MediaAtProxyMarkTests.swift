import Foundation
@testable import OTRouter
@testable import OTSignaling
import Testing

/// `SubscribeRequest.mediaAtProxy` asks the owner to open no leg (the proxying node serves
/// the media); only a socket whose cluster mark verified may ask. A client that sets it on
/// its own socket gets its leg as usual, and its reply names no media node.
@Suite struct MediaAtProxyMarkTests {
    @Test func aDirectClientCannotAskForNoLeg() throws {
        let h = try Harness()
        let (publisher, _) = try h.join()
        let (viewer, _) = try h.join(.subscriber)
        let stream = try h.publish(publisher)
        var request = SubscribeRequest(streamId: stream.stream.streamId)
        request.mediaAtProxy = true
        guard case .subscribed(let subscribed)? = h.request(viewer, .subscribe(request)) else {
            Issue.record("no subscription"); return
        }
        #expect(subscribed.media != nil && subscribed.mediaNode == nil, "\(subscribed)")
        #expect(h.media.subscribers[subscribed.subscriberId] == stream.stream.streamId, "the owner opened the leg itself")
    }

    @Test func theMarksSurviveTheCodec() throws {
        var request = SubscribeRequest(streamId: "s")
        request.mediaAtProxy = true
        let text = SignalingCodec.encode(.subscribe(request), requestId: 7)
        guard case .subscribe(let decoded) = try SignalingCodec.decodeClientMessage(text).message else { Issue.record("\(text)"); return }
        #expect(decoded.mediaAtProxy == true)
        let reply = SubscribedReply(subscriberId: "x", streamId: "s", media: nil, mediaNode: "node-1")
        guard case .subscribed(let back) = try SignalingCodec.decodeServerMessage(SignalingCodec.encode(.subscribed(reply), requestId: 7)).message
        else { Issue.record("reply"); return }
        #expect(back.mediaNode == "node-1" && back.media == nil)
        // Absent fields stay absent on the wire (older clients and routers see nothing new).
        #expect(!SignalingCodec.encode(.subscribe(SubscribeRequest(streamId: "s")), requestId: 1).contains("mediaAtProxy"))
    }
}
