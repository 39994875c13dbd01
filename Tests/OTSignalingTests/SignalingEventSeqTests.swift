import OTSignaling
import Testing

/// The wire additions of issue 15 point 4: events carry `seq`, clients acknowledge with
/// `ack`, resume with `eventSeq`, number their signals, and the resume reply says how many
/// replayed events follow.
@Suite struct SignalingEventSeqTests {
    @Test func anEventCarriesItsSequenceNumber() throws {
        let text = SignalingCodec.encode(.signal(type: "t", data: "d", from: "c1"), eventSeq: 42)
        #expect(text.contains(#""seq":42"#))
        let frame = try SignalingCodec.decodeServerFrame(text)
        #expect(frame.message == .signal(type: "t", data: "d", from: "c1"))
        #expect(frame.eventSeq == 42 && frame.requestId == nil)
        #expect(try SignalingCodec.decodeServerFrame(SignalingCodec.encode(.pong, requestId: 3)).eventSeq == nil, "replies are not numbered")
    }

    @Test func theClientAdditionsRoundTrip() throws {
        for message: ClientMessage in [.acknowledgeEvents(through: 7),
                                       .connect(ConnectRequest(apiKey: "1", token: "T1==x", resumeConnectionId: "c", resumeSecret: "s",
                                                               eventSeq: 9)),
                                       .signal(SignalRequest(type: "t", data: "d", to: nil, id: 3))] {
            let decoded = try SignalingCodec.decodeClientMessage(SignalingCodec.encode(message, requestId: 1))
            #expect(decoded.message == message)
        }
        let ack = SignalingCodec.encode(ClientMessage.acknowledgeEvents(through: 7), requestId: 1)
        #expect(ack.contains(#""type":"ack""#) && ack.contains(#""body":{"eventSeq":7}"#), "\(ack)")
    }

    @Test func theResumeReplySaysHowManyEventsFollow() throws {
        var reply = ConnectedReply(connection: WireConnection(connectionId: "c", creationTime: 1, data: nil),
                                   capabilities: WireCapabilities(role: .publisher), connections: [], streams: [], archive: nil,
                                   forceMuteAll: false, resumeSecret: "s", reconnectGraceMilliseconds: 30_000, relayed: false)
        #expect(!SignalingCodec.encode(.connected(reply), requestId: 1).contains("replayedEvents"), "absent on a first connect")
        reply.replayedEvents = 5
        guard case .connected(let decoded) = try SignalingCodec.decodeServerMessage(SignalingCodec.encode(.connected(reply), requestId: 1)).message
        else { Issue.record("not a connected reply"); return }
        #expect(decoded.replayedEvents == 5)
    }
}
