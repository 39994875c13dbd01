import Foundation
import OTNet
@testable import OTRouter
import OTSignaling
import Testing

/// Issue 15 point 4 at the router: what a connection misses while away (its socket dead
/// but not yet known so, or closed and in its grace) is kept, numbered, and sent once
/// after the resume reply, in order; the cap is enforced; a resent signal is delivered once.
@Suite(.serialized) struct EventReplayTests {
    /// Connects a client that acknowledges events (as OTKit does).
    static func joinAcknowledging(_ h: Harness, _ role: Role = .publisher) throws -> (peer: FakePeer, reply: ConnectedReply) {
        let peer = h.open()
        let reply = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(role), eventSeq: 0)))
        guard case .connected(let connected)? = reply else {
            Issue.record("connect failed: \(String(describing: reply))")
            throw HarnessError.unexpected
        }
        return (peer, connected)
    }

    /// Resumes `reply`'s connection on a new socket from event `seq`.
    static func resume(_ h: Harness, _ reply: ConnectedReply, after seq: Int?) throws -> (peer: FakePeer, answer: ServerMessage?) {
        let peer = h.open()
        let answer = h.request(peer, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(),
                                                             resumeConnectionId: reply.connection.connectionId,
                                                             resumeSecret: reply.resumeSecret, eventSeq: seq)))
        return (peer, answer)
    }

    static func signal(_ type: String, to: String? = nil, id: Int? = nil) -> ClientMessage {
        .signal(SignalRequest(type: type, data: type, to: to, id: id))
    }

    /// Everything that happens in a session while A is away, once each kind.
    static func happenWhileAway(_ h: Harness, a: ConnectedReply, b: FakePeer, bReply: ConnectedReply) throws -> [ServerMessage] {
        let idA = a.connection.connectionId, idB = bReply.connection.connectionId
        #expect(h.request(b, signal("toA1", to: idA)) == .ok)
        #expect(h.request(b, signal("toAll1")) == .ok)
        let (c, cReply) = try h.join()
        let stream = try h.publish(c).stream
        let change = StreamChange(streamId: stream.streamId, hasAudio: false, hasVideo: nil)
        #expect(h.request(c, .streamChanged(change)) == .ok)
        #expect(h.request(c, .disconnect) == .ok)
        let archive = h.http("POST", h.projectPath + "/archive", body: #"{"sessionId":"\#(h.sessionId)","name":"away"}"#)
        #expect(archive.status == 200, "\(archive.text)")
        #expect(h.request(b, .forceMuteAll(excludedStreamIds: [])) == .ok)
        return [.signal(type: "toA1", data: "toA1", from: idB), .signal(type: "toAll1", data: "toAll1", from: idB),
                .connectionCreated(cReply.connection), .streamCreated(stream), .streamChanged(change),
                .streamDestroyed(streamId: stream.streamId, reason: "clientDisconnected"),
                .connectionDestroyed(connectionId: cReply.connection.connectionId, reason: "clientDisconnected"),
                .archiveStarted(WireArchive(id: archive.object["id"] as? String ?? "?", name: "away")),
                .muteForced(streamId: nil, active: true)]
    }

    @Test func eventsMissedInTheGraceComeRightAfterTheResumeReplyInOrder() throws {
        let h = try Harness(grace: 30)
        let (a, ra) = try Self.joinAcknowledging(h)
        let (b, rb) = try h.join(.moderator)
        let handled = try #require(Self.lastSeq(h, ra.connection.connectionId, dropping: 0), "B's connectionCreated")
        h.service.webSocketClosed(a)
        let expected = try Self.happenWhileAway(h, a: ra, b: b, bReply: rb)

        let (again, answer) = try Self.resume(h, ra, after: handled)
        guard case .connected(let resumed)? = answer else { Issue.record("resume refused: \(String(describing: answer))"); return }
        #expect(resumed.replayedEvents == expected.count)
        #expect(again.messages.dropFirst().map { $0 } == expected, "the reply first, then each missed event once, in order")
        #expect(resumed.forceMuteAll && resumed.archive != nil, "the reply's state is the state after them")
    }

    @Test func aClientThatDoesNotAcknowledgeGetsWhatItsGraceKept() throws {
        let h = try Harness(grace: 30)
        let (a, ra) = try h.join()  // no eventSeq: an older client
        let (b, rb) = try h.join(.moderator)
        h.service.webSocketClosed(a)
        let expected = try Self.happenWhileAway(h, a: ra, b: b, bReply: rb)
        let (again, answer) = try Self.resume(h, ra, after: nil)
        guard case .connected(let resumed)? = answer else { Issue.record("resume refused: \(String(describing: answer))"); return }
        #expect(resumed.replayedEvents == expected.count)
        #expect(Array(again.messages.dropFirst()) == expected)
        #expect(h.service.hub.perform { h.service.hub.eventLogs[ra.connection.connectionId] } == nil,
                "nothing kept for it once it is back: it never acknowledges")
    }

    /// The router has not yet found the old socket dead (silence takes 5 s): the events
    /// it wrote into it never reached the client, which resumes from the last it handled.
    @Test func eventsWrittenIntoADeadSocketAreSentAgainFromTheLastHandled() throws {
        let h = try Harness(grace: 30)
        let (a, ra) = try Self.joinAcknowledging(h)
        let (b, rb) = try h.join()
        #expect(h.request(b, Self.signal("seen", to: ra.connection.connectionId)) == .ok)
        #expect(h.request(b, Self.signal("lost1", to: ra.connection.connectionId)) == .ok)
        #expect(h.request(b, Self.signal("lost2")) == .ok)
        // A handled "seen" only; its socket is still open as far as the router knows.
        #expect(a.events.count == 4, "connectionCreated B and three signals went into its socket")
        let seenSeq = try #require(Self.lastSeq(h, ra.connection.connectionId, dropping: 2))
        let (again, answer) = try Self.resume(h, ra, after: seenSeq)
        guard case .connected(let resumed)? = answer else { Issue.record("resume refused: \(String(describing: answer))"); return }
        #expect(a.isClosed, "the old socket is replaced")
        #expect(resumed.replayedEvents == 2)
        let from = rb.connection.connectionId
        #expect(Array(again.messages.dropFirst()) == [.signal(type: "lost1", data: "lost1", from: from),
                                                      .signal(type: "lost2", data: "lost2", from: from)])
    }

    /// The sequence number of the event `dropping` places before the newest kept for `id`.
    static func lastSeq(_ h: Harness, _ id: String, dropping: Int) -> Int? {
        h.service.hub.perform { () -> Int? in
            guard let log = h.service.hub.eventLogs[id] else { return nil }
            let texts = log.texts(after: 0)
            guard texts.count > dropping else { return nil }
            return try? SignalingCodec.decodeServerFrame(texts[texts.count - 1 - dropping]).eventSeq
        }
    }

    @Test func acknowledgedEventsAreForgotten() throws {
        let h = try Harness(grace: 30)
        let (_, ra) = try Self.joinAcknowledging(h)
        let (b, _) = try h.join()
        let id = ra.connection.connectionId
        for n in 0..<5 { #expect(h.request(b, Self.signal("s\(n)", to: id)) == .ok) }
        #expect(h.service.hub.perform { h.service.hub.eventLogs[id]?.count } == 5 + 1, "5 signals and B's connectionCreated")
        let third = try #require(Self.lastSeq(h, id, dropping: 2))
        h.service.hub.perform { h.service.hub.acknowledgeEvents(through: third, of: id) }
        #expect(h.service.hub.perform { h.service.hub.eventLogs[id]?.count } == 2)
    }

    @Test func anAcknowledgementOnTheWireTrimsTheLog() throws {
        let h = try Harness(grace: 30)
        let (a, ra) = try Self.joinAcknowledging(h)
        let (b, _) = try h.join()
        let id = ra.connection.connectionId
        #expect(h.request(b, Self.signal("s", to: id)) == .ok)
        let newest = try #require(Self.lastSeq(h, id, dropping: 0))
        #expect(h.request(a, .acknowledgeEvents(through: newest)) == .ok)
        #expect(h.service.hub.perform { h.service.hub.eventLogs[id]?.count } == 0)
    }

    @Test func missingMoreThanTheCapRefusesTheResumeAndEndsTheConnection() throws {
        var limits = RouterLimits()
        limits.missedEventsPerConnection = 3
        let h = try Harness(grace: 30, limits: limits)
        let (a, ra) = try Self.joinAcknowledging(h)
        let (b, _) = try h.join()
        let id = ra.connection.connectionId
        let handled = try #require(Self.lastSeq(h, id, dropping: 0), "B's connectionCreated")
        #expect(h.request(a, .acknowledgeEvents(through: handled)) == .ok)
        h.service.webSocketClosed(a)
        for n in 0..<4 { #expect(h.request(b, Self.signal("s\(n)", to: id)) == .ok) }
        b.clear()
        let (again, answer) = try Self.resume(h, ra, after: handled)
        guard case .error(let error)? = answer else { Issue.record("resumed although an event was dropped: \(String(describing: answer))"); return }
        #expect(error.code == 1010)
        #expect(error.message.contains("1 event(s)") && error.message.contains("missedEventsPerConnection"), "\(error.message)")
        #expect(again.isClosed)
        #expect(b.events == [.connectionDestroyed(connectionId: id, reason: "networkDisconnected")], "the others see it leave")
        #expect(h.service.hub.perform { h.service.hub.eventLogs[id] } == nil)
    }

    @Test func missingExactlyTheCapStillResumes() throws {
        var limits = RouterLimits()
        limits.missedEventsPerConnection = 3
        let h = try Harness(grace: 30, limits: limits)
        let (a, ra) = try Self.joinAcknowledging(h)
        let (b, _) = try h.join()
        let handled = try #require(Self.lastSeq(h, ra.connection.connectionId, dropping: 0))  // B's connectionCreated
        h.service.webSocketClosed(a)
        for n in 0..<3 { #expect(h.request(b, Self.signal("s\(n)", to: ra.connection.connectionId)) == .ok) }
        let (again, answer) = try Self.resume(h, ra, after: handled)
        guard case .connected(let resumed)? = answer else { Issue.record("resume refused: \(String(describing: answer))"); return }
        #expect(resumed.replayedEvents == 3)
        #expect(again.messages.count == 4)
    }

    @Test func theByteCapCountsToo() throws {
        var limits = RouterLimits()
        limits.missedEventBytesPerConnection = 16_384
        let h = try Harness(grace: 30, limits: limits)
        let (a, ra) = try Self.joinAcknowledging(h)
        let (b, _) = try h.join()
        h.service.webSocketClosed(a)
        let big = String(repeating: "x", count: 8000)
        for _ in 0..<3 { #expect(h.request(b, .signal(SignalRequest(type: "big", data: big, to: ra.connection.connectionId))) == .ok) }
        let (_, answer) = try Self.resume(h, ra, after: 0)
        guard case .error(let error)? = answer else { Issue.record("resumed past the byte cap"); return }
        #expect(error.code == 1010)
    }

    @Test func aSignalSentAgainWithItsIdIsDeliveredOnce() throws {
        let h = try Harness(grace: 30)
        let (a, _) = try h.join()
        let (b, rb) = try h.join()
        a.clear()
        #expect(h.request(b, Self.signal("one", id: 1)) == .ok)
        #expect(h.request(b, Self.signal("one", id: 1)) == .ok, "a resend is confirmed")
        #expect(h.request(b, Self.signal("two", id: 2)) == .ok)
        #expect(h.request(b, Self.signal("one", id: 1)) == .ok)
        let from = rb.connection.connectionId
        #expect(a.events == [.signal(type: "one", data: "one", from: from), .signal(type: "two", data: "two", from: from)])
        // Ids are per connection: A's own 1 is new.
        #expect(h.request(a, Self.signal("a1", id: 1)) == .ok)
        #expect(a.events.count == 3)
    }

    @Test func aRefusedSignalDoesNotUseUpItsId() throws {
        var limits = RouterLimits()
        limits.signalsPerSecond = 1
        let h = try Harness(grace: 30, limits: limits)
        let (a, _) = try h.join()
        let (b, _) = try h.join()
        a.clear()
        #expect(h.request(b, Self.signal("one", id: 1)) == .ok)
        #expect(RouterLimitsTests.errorCode(h.request(b, Self.signal("two", id: 2))) == 1550)
        Thread.sleep(forTimeInterval: 1.1)
        #expect(h.request(b, Self.signal("two", id: 2)) == .ok)
        #expect(a.events.count == 2)
    }

    @Test func aLogEndsWithItsConnection() throws {
        let h = try Harness(grace: 0.3)
        let (a, ra) = try Self.joinAcknowledging(h)
        let (b, _) = try h.join()
        let id = ra.connection.connectionId
        h.service.webSocketClosed(a)
        #expect(h.request(b, Self.signal("s", to: id)) == .ok)
        #expect(h.service.hub.perform { h.service.hub.eventLogs[id]?.count } == 2)
        #expect(eventually { b.events.contains(.connectionDestroyed(connectionId: id, reason: "networkDisconnected")) })
        #expect(h.service.hub.perform { h.service.hub.eventLogs.isEmpty }, "the grace ended: nothing kept for it")
        let (c, rc) = try Self.joinAcknowledging(h)
        #expect(h.request(c, .disconnect) == .ok)
        #expect(h.service.hub.perform { h.service.hub.eventLogs[rc.connection.connectionId] } == nil, "a disconnect frees it too")
    }

    @Test func theCapsAreReadFromTheConfigurationFileAndChecked() throws {
        #expect(RouterLimits().missedEventsPerConnection == 1000 && RouterLimits().missedEventBytesPerConnection == 1 << 20)
        let path = NSTemporaryDirectory() + "otkit-missed-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let environment = ["OTKIT_API_KEY": "k", "OTKIT_API_SECRET": "s"]
        try #"{"limits": {"missedEventsPerConnection": 7, "missedEventBytesPerConnection": 20000}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let limits = try RouterConfiguration.load(file: path, environment: environment).limits
        #expect(limits.missedEventsPerConnection == 7 && limits.missedEventBytesPerConnection == 20000)
        for bad in [#"{"limits": {"missedEventsPerConnection": 0}}"#, #"{"limits": {"missedEventBytesPerConnection": 100}}"#] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: RouterConfigurationError.self) { try RouterConfiguration.load(file: path, environment: environment) }
        }
    }

    @Test func numbersAreRangeChecked() throws {
        for text in [#"{"type":"ack","requestId":1,"body":{"eventSeq":-1}}"#,
                     #"{"type":"signal","requestId":1,"body":{"type":"t","data":"d","id":0}}"#,
                     #"{"type":"connect","requestId":1,"body":{"apiKey":"k","token":"t","eventSeq":-5}}"#] {
            #expect(throws: SignalingDecodingError.self) { try SignalingCodec.decodeClientMessage(text) }
        }
    }
}
