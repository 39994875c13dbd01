import OTSignaling
import Testing

@Suite struct SignalingCodecTests {
    static let stream = WireStream(streamId: "8b732909-0a06-46a2-8ea8-074e64d43422", connectionId: "c1", name: "cam",
                                   hasAudio: true, hasVideo: false, videoWidth: 640, videoHeight: 480,
                                   videoType: "camera", creationTime: 1_700_000_000_000)
    static let connection = WireConnection(connectionId: "c1", creationTime: 1_700_000_000_000, data: "name=Alice")
    static let leg = WireMediaLeg(host: "127.0.0.1", port: 40000, profile: "AEAD_AES_128_GCM",
                                  clientKey: "a2V5", routerKey: "c2FsdA==", audioSSRC: 1, videoSSRC: nil)

    static let clientMessages: [ClientMessage] = [
        .connect(ConnectRequest(apiKey: "123", token: "T1==abc", resumeConnectionId: "c1", resumeSecret: "s")),
        .connect(ConnectRequest(apiKey: "123", token: "eyJ")),
        .publish(PublishRequest(name: "cam", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                videoWidth: 640, videoHeight: 480, videoType: "camera")),
        .publish(PublishRequest(name: "p2p", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                videoWidth: 1280, videoHeight: 720, videoType: "camera", simulcastLayers: 3,
                                relayedLeg: WireMediaLeg(host: "127.0.0.1", port: 5000, profile: "AEAD_AES_128_GCM",
                                                         clientKey: "a2V5", routerKey: "c2FsdA==", audioSSRC: 7, videoSSRC: 8))),
        .unpublish(streamId: "s1"),
        .subscribe(SubscribeRequest(streamId: "s1", subscribeToAudio: false, subscribeToVideo: true)),
        .unsubscribe(subscriberId: "u1"),
        .signal(SignalRequest(type: "chat", data: "héllo \"quoted\" / ✓", to: nil)),
        .signal(SignalRequest(type: "", data: "", to: "c2")),
        .streamChanged(StreamChange(streamId: "s1", hasAudio: false, hasVideo: nil)),
        .subscriptionChanged(SubscriptionChange(subscriberId: "u1", subscribeToAudio: nil, subscribeToVideo: false)),
        .subscriptionChanged(SubscriptionChange(subscriberId: "u1", subscribeToAudio: true, subscribeToVideo: true)),
        .subscriberPreferences(SubscriberPreferences(subscriberId: "u1", preferredWidth: 320, preferredHeight: 180,
                                                     preferredFrameRate: 7.5)),
        .subscriberPreferences(SubscriberPreferences(subscriberId: "u1", preferredWidth: nil, preferredHeight: nil,
                                                     preferredFrameRate: nil)),
        .forceMuteAll(excludedStreamIds: ["s1", "s2"]),
        .forceMuteStream(streamId: "s1"),
        .disableForceMute,
        .forceDisconnect(connectionId: "c2"),
        .reportIssue(IssueReport(description: "choppy", stats: ["rtt=4"], logs: ["a", "b"])),
        .ping,
        .disconnect,
    ]

    static let serverMessages: [ServerMessage] = [
        .connected(ConnectedReply(connection: connection, capabilities: WireCapabilities(role: .moderator),
                                  connections: [connection], streams: [stream], archive: WireArchive(id: "a", name: ""),
                                  forceMuteAll: true, resumeSecret: "s", reconnectGraceMilliseconds: 30_000, relayed: false)),
        .published(PublishedReply(stream: stream, media: leg, muted: false)),
        .subscribed(SubscribedReply(subscriberId: "u1", streamId: "s1", media: nil)),
        .issueReported(issueId: "i1"),
        .ok,
        .error(ErrorReply(code: 1413, message: "too long")),
        .pong,
        .connectionCreated(connection),
        .connectionDestroyed(connectionId: "c1", reason: "forceDisconnected"),
        .streamCreated(stream),
        .streamDestroyed(streamId: "s1", reason: "unpublished"),
        .streamChanged(StreamChange(streamId: "s1", hasAudio: nil, hasVideo: true)),
        .streamInterrupted(streamId: "s1"),
        .streamResumed(streamId: "s1"),
        .signal(type: "chat", data: "x", from: nil),
        .signal(type: "chat", data: "x", from: "c1"),
        .muteForced(streamId: "s1", active: true),
        .muteForced(streamId: nil, active: false),
        .archiveStarted(WireArchive(id: "a", name: "n")),
        .archiveStopped(archiveId: "a"),
        .disconnected(reason: "forceDisconnected", code: nil),
        .published(PublishedReply(stream: stream, media: WireMediaLeg(host: "127.0.0.1", port: 4000, profile: "AEAD_AES_128_GCM",
                                                                      clientKey: "a2V5", routerKey: "c2FsdA==", audioSSRC: 1,
                                                                      videoSSRC: 2, simulcastSSRCs: [3, 4]), muted: false)),
        .subscriberQuality(SubscriberQualityEvent(subscriberId: "u1", streamId: "s1", state: "disabled")),
        .encodingPreferences(EncodingPreferences(streamId: "s1", maxWidth: 320, maxHeight: 180, maxFrameRate: 7.5)),
        .encodingPreferences(EncodingPreferences(streamId: "s1", maxWidth: nil, maxHeight: nil, maxFrameRate: nil)),
        .relayedReceiversRevoked(RelayedReceiversRevoked(streamId: "s1", receiverSSRCs: [1, 0xFFFF_FFFF])),
        .mediaFailed(MediaFailure(streamId: "s1", subscriberId: nil, message: "DTLS handshake failed")),
        .mediaFailed(MediaFailure(streamId: "s1", subscriberId: "u1", message: "DTLS handshake timed out")),
        .mediaFailed(MediaFailure(streamId: "s1", subscriberId: "u1", message: "its router went away", resubscribe: true)),
        .subscribed(SubscribedReply(subscriberId: "u1", streamId: "s1", media: {
            var leg = WireMediaLeg(host: "192.0.2.1", port: 40_000, profile: "AEAD_AES_128_GCM", clientKey: "a2V5",
                                   routerKey: "c2FsdA==", audioSSRC: 1, videoSSRC: 2)
            leg.receiverSSRC = 0xFFFF_FFFE  // a relayed subscriber leg
            return leg
        }())),
    ]

    @Test(arguments: clientMessages)
    func clientMessagesRoundTrip(_ message: ClientMessage) throws {
        let text = SignalingCodec.encode(message, requestId: 42)
        let decoded = try SignalingCodec.decodeClientMessage(text)
        #expect(decoded.message == message)
        #expect(decoded.requestId == 42)
    }

    @Test(arguments: serverMessages)
    func serverMessagesRoundTrip(_ message: ServerMessage) throws {
        let event = try SignalingCodec.decodeServerMessage(SignalingCodec.encode(message))
        #expect(event.message == message)
        #expect(event.requestId == nil)
        let reply = try SignalingCodec.decodeServerMessage(SignalingCodec.encode(message, requestId: 7))
        #expect(reply.requestId == 7)
    }

    /// An edge leg carries the router's transport and no SRTP key at all: the keys are
    /// absent from the JSON, and a leg without them decodes (older SDES legs still carry both).
    @Test func anEdgeLegHasNoKeyOnTheWire() throws {
        var leg = WireMediaLeg(host: "192.0.2.1", port: 7882, profile: "AEAD_AES_128_GCM", clientKey: nil, routerKey: nil,
                               audioSSRC: 1, videoSSRC: 2)
        leg.transport = WireTransport(iceUfrag: "abcd1234", icePassword: "abcdefghijklmnopqrstuvwx",
                                      fingerprint: "sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"))
        let text = SignalingCodec.encode(ServerMessage.published(PublishedReply(stream: Self.stream, media: leg, muted: false)), requestId: 5)
        #expect(!text.contains("clientKey") && !text.contains("routerKey"))
        #expect(text.contains(#""iceUfrag":"abcd1234""#))
        let decoded = try SignalingCodec.decodeServerMessage(text)
        guard case .published(let reply) = decoded.message else { Issue.record("not a published reply"); return }
        #expect(reply.media == leg && reply.media?.clientKey == nil && reply.media?.routerKey == nil)
    }

    /// What the router checks in a client's transport before it registers a leg.
    @Test func transportProblemsAreNamedAndGoodOnesPass() {
        let fingerprint = "sha-256 " + Array(repeating: "0F", count: 32).joined(separator: ":")
        let good = WireTransport(iceUfrag: "ab+/", icePassword: String(repeating: "x", count: 22), fingerprint: fingerprint)
        #expect(good.problem == nil && good.sha256Fingerprint == [UInt8](repeating: 0x0F, count: 32))
        let bad: [WireTransport] = [
            WireTransport(iceUfrag: "abc", icePassword: good.icePassword, fingerprint: fingerprint),
            WireTransport(iceUfrag: String(repeating: "a", count: 257), icePassword: good.icePassword, fingerprint: fingerprint),
            WireTransport(iceUfrag: "ab:cd", icePassword: good.icePassword, fingerprint: fingerprint),
            WireTransport(iceUfrag: "abcdé", icePassword: good.icePassword, fingerprint: fingerprint),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: String(repeating: "x", count: 21), fingerprint: fingerprint),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: "sha-1 " + Array(repeating: "0F", count: 20).joined(separator: ":")),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: "sha-256 0F:0F"),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: "sha-256 " + Array(repeating: "0G", count: 32).joined(separator: ":")),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: fingerprint + String(repeating: " ", count: 300)),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: ""),
        ]
        for transport in bad { #expect(transport.problem != nil, "\(transport)") }
    }

    @Test func envelopeShapeIsStable() {
        let text = SignalingCodec.encode(ClientMessage.unpublish(streamId: "s/1"), requestId: 3)
        #expect(text.contains(#""type":"unpublish""#))
        #expect(text.contains(#""requestId":3"#))
        #expect(text.contains(#""body":{"streamId":"s/1"}"#))  // slashes are not escaped
        #expect(SignalingCodec.encode(ServerMessage.pong, requestId: 9).contains(#""type":"pong""#))
        #expect(!SignalingCodec.encode(ServerMessage.pong).contains("requestId"))
        #expect(!SignalingCodec.encode(ServerMessage.pong).contains("body"))
    }

    static let refused: [(String, SignalingDecodingError)] = [
        ("", .malformed("not JSON")),
        ("[1,2]", .malformed("not JSON")),
        (#"{"requestId":1}"#, .malformed("missing field \"type\"")),
        (#"{"type":"ping"}"#, .missingField("requestId")),
        (#"{"type":"launch","requestId":1}"#, .unknownType("launch")),
        (#"{"type":"publish","requestId":1}"#, .missingField("body")),
        (#"{"type":"unpublish","requestId":1,"body":{}}"#, .malformed("unpublish: missing field \"streamId\"")),
        (#"{"type":"signal","requestId":1,"body":{"type":5,"data":"x"}}"#, .malformed("signal: wrong type at \"type\"")),
        (#"{"type":"ping","requestId":"1"}"#, .malformed("wrong type at \"requestId\"")),
    ]

    @Test(arguments: refused)
    func malformedClientMessagesAreRefused(_ text: String, _ expected: SignalingDecodingError) {
        #expect(throws: expected) { try SignalingCodec.decodeClientMessage(text) }
    }

    @Test func oversizedMessagesAreRefusedBeforeParsing() {
        let text = #"{"type":"ping","requestId":1,"pad":""# + String(repeating: "x", count: SignalingCodec.maximumMessageBytes) + #""}"#
        #expect(throws: SignalingDecodingError.tooLarge(text.utf8.count)) { try SignalingCodec.decodeClientMessage(text) }
    }
}
