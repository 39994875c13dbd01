import Foundation
@testable import OTRouter
@testable import OTSignaling
import Testing

/// What a proxying node does to the messages of a client whose media it serves
/// (`ProxiedMedia`): its native subscribes go on marked, a browser's and anything a client
/// marked itself go unmarked, and only the owner's reply naming this node asks for a leg.
@Suite struct ProxiedMediaMessageTests {
    private func media() throws -> ProxiedMedia {
        ProxiedMedia(router: try MediaRouter(host: "127.0.0.1"), node: "node-1", secret: "s") { _ in }
    }

    private func subscribe(_ text: String) throws -> SubscribeRequest? {
        guard case .subscribe(let request) = try SignalingCodec.decodeClientMessage(text).message else { return nil }
        return request
    }

    @Test func nativeSubscribesAreMarkedAndBrowsersAndClientMarksAreNot() throws {
        let proxied = try media()
        let native = try #require(try subscribe(proxied.outgoing(SignalingCodec.encode(.subscribe(SubscribeRequest(streamId: "s")), requestId: 3))))
        #expect(native.mediaAtProxy == true)
        var browser = SubscribeRequest(streamId: "s")
        browser.sdp = true
        browser.mediaAtProxy = true  // a client cannot ask the owner for no leg
        let relayed = try #require(try subscribe(proxied.outgoing(SignalingCodec.encode(.subscribe(browser), requestId: 4))))
        #expect(relayed.mediaAtProxy == nil && relayed.sdp == true)
        // Other messages go on untouched.
        let signal = SignalingCodec.encode(.signal(SignalRequest(type: "t", data: "subscribe", to: nil)), requestId: 5)
        #expect(proxied.outgoing(signal) == signal)
    }

    @Test func onlyTheOwnersReplyNamingThisNodeAsksForALeg() throws {
        let proxied = try media()
        _ = proxied.outgoing(SignalingCodec.encode(.subscribe(SubscribeRequest(streamId: "s")), requestId: 3))
        _ = proxied.outgoing(SignalingCodec.encode(.subscribe(SubscribeRequest(streamId: "s")), requestId: 4))
        _ = proxied.outgoing(SignalingCodec.encode(.subscribe(SubscribeRequest(streamId: "s")), requestId: 5))
        // Another node named, or a reply with a leg of the owner's own: passed on as it is.
        let elsewhere = SignalingCodec.encode(.subscribed(SubscribedReply(subscriberId: "a", streamId: "s", media: nil, mediaNode: "node-2")),
                                              requestId: 3)
        guard case .pass = proxied.incoming(elsewhere) else { Issue.record("another node's reply asked for a leg here"); return }
        // An error for a pending subscribe: passed on, and that request is forgotten.
        let refused = SignalingCodec.encode(.error(ErrorReply(code: 1604, message: "no")), requestId: 4)
        guard case .pass = proxied.incoming(refused) else { Issue.record("error not passed"); return }
        let late = SignalingCodec.encode(.subscribed(SubscribedReply(subscriberId: "b", streamId: "s", media: nil, mediaNode: "node-1")),
                                         requestId: 4)
        guard case .pass = proxied.incoming(late) else { Issue.record("a forgotten request asked for a leg"); return }
        // The owner's reply naming this node for a pending request: a leg is needed.
        let ours = SignalingCodec.encode(.subscribed(SubscribedReply(subscriberId: "c", streamId: "s", media: nil, mediaNode: "node-1")),
                                         requestId: 5)
        guard case .needsLeg(let reply, let request, let requestId) = proxied.incoming(ours) else { Issue.record("no leg asked"); return }
        #expect(reply.subscriberId == "c" && request.streamId == "s" && requestId == 5)
        // Without the owner's URL the set-up fails: 1604 for the client, an unsubscribe for the owner
        // whose reply is swallowed.
        let answer = proxied.openLeg(reply, for: request, requestId: requestId)
        guard case .error(let error) = try SignalingCodec.decodeServerMessage(answer.toClient).message else { Issue.record("\(answer.toClient)"); return }
        #expect(error.code == 1604)
        let undo = try SignalingCodec.decodeClientMessage(try #require(answer.toOwner))
        #expect(undo.message == .unsubscribe(subscriberId: "c") && undo.requestId < 0)
        guard case .swallow = proxied.incoming(SignalingCodec.encode(.ok, requestId: undo.requestId)) else {
            Issue.record("the reply to the node's own unsubscribe reached the client"); return
        }
    }
}
