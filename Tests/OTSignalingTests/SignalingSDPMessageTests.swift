import Testing
@testable import OTSignaling

/// The browser SDP fields of the wire (issue 16): `publish.sdpOffer`, `published.sdpAnswer`,
/// `subscribe.sdp`, `subscribed.sdpOffer` and the `subscriberAnswer` message survive the
/// codec unchanged, keep the names the JavaScript client sends, and stay absent for native
/// clients.
@Suite struct SignalingSDPMessageTests {
    static let offer = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"

    @Test func publishWithAnOfferRoundTrips() throws {
        var request = PublishRequest(name: "web", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                     videoWidth: 640, videoHeight: 480, videoType: "camera")
        request.sdpOffer = Self.offer
        let text = SignalingCodec.encode(ClientMessage.publish(request), requestId: 7)
        #expect(text.contains(#""sdpOffer":"v=0\r\n"#))
        let decoded = try SignalingCodec.decodeClientMessage(text)
        #expect(decoded.message == .publish(request) && decoded.requestId == 7)
    }

    @Test func subscribeAskingForSDPRoundTripsAndNativeOmitsIt() throws {
        var request = SubscribeRequest(streamId: "s1")
        #expect(!SignalingCodec.encode(ClientMessage.subscribe(request), requestId: 1).contains("sdp"))
        request.sdp = true
        let text = SignalingCodec.encode(ClientMessage.subscribe(request), requestId: 2)
        #expect(text.contains(#""sdp":true"#))
        #expect(try SignalingCodec.decodeClientMessage(text).message == .subscribe(request))
        // What the JavaScript client writes by hand decodes too.
        let js = #"{"type":"subscribe","requestId":3,"body":{"streamId":"s1","subscribeToAudio":true,"subscribeToVideo":false,"sdp":true}}"#
        guard case .subscribe(let fromJS) = try SignalingCodec.decodeClientMessage(js).message else {
            Issue.record("not a subscribe"); return
        }
        #expect(fromJS.sdp == true && fromJS.subscribeToVideo == false)
    }

    @Test func subscriberAnswerRoundTripsUnderItsWireName() throws {
        let message = ClientMessage.subscriberAnswer(SubscriberAnswer(subscriberId: "sub-1", sdp: Self.offer))
        let text = SignalingCodec.encode(message, requestId: 9)
        #expect(text.contains(#""type":"subscriberAnswer""#) && text.contains(#""subscriberId":"sub-1""#))
        #expect(try SignalingCodec.decodeClientMessage(text).message == message)
        #expect(throws: SignalingDecodingError.malformed("subscriberAnswer: missing field \"sdp\"")) {
            try SignalingCodec.decodeClientMessage(#"{"type":"subscriberAnswer","requestId":1,"body":{"subscriberId":"x"}}"#)
        }
    }

    @Test func repliesCarryTheRoutersSDP() throws {
        let stream = SignalingCodecTests.stream
        let published = ServerMessage.published(PublishedReply(stream: stream, media: nil, muted: false, sdpAnswer: Self.offer))
        let text = SignalingCodec.encode(published, requestId: 4)
        #expect(text.contains(#""sdpAnswer":"v=0"#))
        #expect(try SignalingCodec.decodeServerMessage(text).message == published)
        let subscribed = ServerMessage.subscribed(SubscribedReply(subscriberId: "a", streamId: stream.streamId, media: nil,
                                                                  sdpOffer: Self.offer))
        let subscribedText = SignalingCodec.encode(subscribed, requestId: 5)
        #expect(subscribedText.contains(#""sdpOffer":"v=0"#))
        #expect(try SignalingCodec.decodeServerMessage(subscribedText).message == subscribed)
        // Native replies do not grow the new keys.
        let native = SignalingCodec.encode(ServerMessage.published(PublishedReply(stream: stream, media: nil, muted: true)), requestId: 6)
        #expect(!native.contains("sdp"))
    }
}
