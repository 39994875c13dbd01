import OTNet
@testable import OTRouter
import OTSignaling
import Testing

@Suite(.serialized) struct ReconnectionTests {
    @Test func resumeWithinGraceShowsOnlyInterruptedAndResumed() throws {
        let h = try Harness(grace: 30)
        let (a, ra) = try h.join()
        let (b, _) = try h.join()
        let stream = try h.publish(a).stream.streamId
        b.clear()
        h.service.webSocketClosed(a)
        #expect(b.events == [.streamInterrupted(streamId: stream)])
        #expect(h.service.metrics.connections == 2)

        let again = h.open()
        let reply = h.request(again, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(),
                                                             resumeConnectionId: ra.connection.connectionId, resumeSecret: ra.resumeSecret)))
        guard case .connected(let resumed)? = reply else { Issue.record("resume refused: \(String(describing: reply))"); return }
        #expect(resumed.connection.connectionId == ra.connection.connectionId)
        #expect(resumed.streams.map(\.streamId) == [stream], "its own stream is listed on resume")
        #expect(b.events == [.streamInterrupted(streamId: stream), .streamResumed(streamId: stream)])
        #expect(h.media.publishers == [stream])
        // The resumed socket works.
        b.clear()
        #expect(h.request(again, .signal(SignalRequest(type: "t", data: "d", to: nil))) == .ok)
        #expect(b.events == [.signal(type: "t", data: "d", from: ra.connection.connectionId)])
    }

    @Test func wrongResumeSecretIsRefused() throws {
        let h = try Harness(grace: 30)
        let (a, ra) = try h.join()
        h.service.webSocketClosed(a)
        let again = h.open()
        guard case .error(let error)? = h.request(again, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(),
                                                                                 resumeConnectionId: ra.connection.connectionId, resumeSecret: "guess")))
        else { Issue.record("accepted"); return }
        #expect(error.code == 1010)
        #expect(again.isClosed)
    }

    @Test func graceExpiryDestroys() throws {
        let h = try Harness(grace: 0.3)
        let (a, ra) = try h.join()
        let (b, _) = try h.join()
        let stream = try h.publish(a).stream.streamId
        b.clear()
        h.service.webSocketClosed(a)
        #expect(eventually { b.events.count >= 3 })
        #expect(b.events == [.streamInterrupted(streamId: stream),
                             .streamDestroyed(streamId: stream, reason: "networkDisconnected"),
                             .connectionDestroyed(connectionId: ra.connection.connectionId, reason: "networkDisconnected")])
        #expect(h.media.publishers.isEmpty)
        // Too late to resume.
        let again = h.open()
        guard case .error(let error)? = h.request(again, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(),
                                                                                 resumeConnectionId: ra.connection.connectionId, resumeSecret: ra.resumeSecret)))
        else { Issue.record("accepted"); return }
        #expect(error.code == 1010)
    }

    @Test func silentSocketCountsAsDropped() throws {
        let h = try Harness(grace: 30, silence: 0.3)
        let (a, _) = try h.join()
        let (b, _) = try h.join()
        let stream = try h.publish(a).stream.streamId
        b.clear()
        // b keeps pinging; a says nothing.
        #expect(eventually {
            _ = h.request(b, .ping)
            return b.events.contains(.streamInterrupted(streamId: stream))
        })
        #expect(a.isClosed)
        #expect(!b.isClosed)
    }

    @Test func resumeBeforeTheOldSocketIsKnownDeadReplacesItQuietly() throws {
        let h = try Harness(grace: 30)
        let (a, ra) = try h.join()
        let (b, _) = try h.join()
        _ = try h.publish(a)
        b.clear()
        let again = h.open()
        guard case .connected? = h.request(again, .connect(ConnectRequest(apiKey: Fixture.project.apiKey, token: try h.token(),
                                                                          resumeConnectionId: ra.connection.connectionId, resumeSecret: ra.resumeSecret)))
        else { Issue.record("resume refused"); return }
        #expect(a.isClosed)
        #expect(b.events.isEmpty)
        h.service.webSocketClosed(a)  // the old socket's close must not interrupt the resumed connection
        #expect(b.events.isEmpty)
        #expect(h.request(again, .ping) == .pong)
    }
}
