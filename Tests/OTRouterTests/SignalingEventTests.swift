import OTNet
@testable import OTRouter
import OTSignaling
import Testing

/// Exact event sequences with three clients.
@Suite struct SignalingEventTests {
    @Test func joinPublishSubscribeUnpublishLeave() throws {
        let h = try Harness()
        let (a, ra) = try h.join(data: "a")
        let (b, rb) = try h.join(data: "b")
        let (c, rc) = try h.join(data: "c")
        #expect(a.events == [.connectionCreated(rb.connection), .connectionCreated(rc.connection)])
        #expect(b.events == [.connectionCreated(rc.connection)])
        #expect(c.events.isEmpty)
        #expect(rc.connections.map(\.connectionId) == [ra.connection.connectionId, rb.connection.connectionId])
        [a, b, c].forEach { $0.clear() }

        let published = try h.publish(a)
        #expect(published.media?.audioSSRC == 1111 && published.media?.videoSSRC == 2222 && !published.muted)
        #expect(published.stream.connectionId == ra.connection.connectionId)
        #expect(a.events.isEmpty, "never streamCreated to its own publisher")
        #expect(b.events == [.streamCreated(published.stream)])
        #expect(c.events == [.streamCreated(published.stream)])
        #expect(h.media.publishers == [published.stream.streamId])

        guard case .subscribed(let sub)? = h.request(b, .subscribe(SubscribeRequest(streamId: published.stream.streamId))) else {
            Issue.record("subscribe failed"); return
        }
        #expect(sub.streamId == published.stream.streamId && sub.media != nil)
        #expect(h.media.subscribers == [sub.subscriberId: published.stream.streamId])
        #expect(h.service.metrics.subscribers == 1 && h.service.metrics.streams == 1)

        let change = StreamChange(streamId: published.stream.streamId, hasAudio: false, hasVideo: nil)
        [a, b, c].forEach { $0.clear() }
        #expect(h.request(a, .streamChanged(change)) == .ok)
        #expect(b.events == [.streamChanged(change)] && c.events == [.streamChanged(change)] && a.events.isEmpty)

        // A late joiner sees the stream in its connected reply.
        let (d, rd) = try h.join()
        #expect(rd.streams.map(\.streamId) == [published.stream.streamId] && rd.streams.first?.hasAudio == false)
        [a, b, c, d].forEach { $0.clear() }

        #expect(h.request(a, .unpublish(streamId: published.stream.streamId)) == .ok)
        for peer in [b, c, d] { #expect(peer.events == [.streamDestroyed(streamId: published.stream.streamId, reason: "unpublished")]) }
        #expect(a.events.isEmpty)
        #expect(h.media.publishers.isEmpty && h.media.subscribers.isEmpty)
        #expect(h.service.metrics.subscribers == 0)

        // Leave: everyone else hears streamDestroyed then connectionDestroyed.
        let second = try h.publish(c)
        [a, b, c, d].forEach { $0.clear() }
        #expect(h.request(c, .disconnect) == .ok)
        #expect(c.isClosed)
        let id = rc.connection.connectionId
        for peer in [a, b, d] {
            #expect(peer.events == [.streamDestroyed(streamId: second.stream.streamId, reason: "clientDisconnected"),
                                    .connectionDestroyed(connectionId: id, reason: "clientDisconnected")])
        }
        h.service.webSocketClosed(c)  // the socket's close after a clean disconnect changes nothing
        #expect(a.events.count == 2)
        #expect(h.service.metrics.connections == 3)
    }

    @Test func rolesAreEnforced() throws {
        let h = try Harness()
        let (subscriber, _) = try h.join(.subscriber)
        let (publisherOnly, _) = try h.join(.publisheronly)
        guard case .error(let e1)? = h.request(subscriber, .publish(PublishRequest(name: "", hasAudio: true, hasVideo: true, audioTrack: true,
                                                                                    videoTrack: true, videoWidth: 1, videoHeight: 1, videoType: "camera")))
        else { Issue.record("subscriber published"); return }
        #expect(e1.code == 1500)
        let stream = try h.publish(publisherOnly)
        guard case .error(let e2)? = h.request(publisherOnly, .subscribe(SubscribeRequest(streamId: stream.stream.streamId))) else {
            Issue.record("publisheronly subscribed"); return
        }
        #expect(e2.code == 1500)
        guard case .error(let e3)? = h.request(subscriber, .subscribe(SubscribeRequest(streamId: "nope"))) else { Issue.record("no error"); return }
        #expect(e3.code == 1604)
        guard case .error(let e4)? = h.request(subscriber, .unsubscribe(subscriberId: "nope")) else { Issue.record("no error"); return }
        #expect(e4.code == 1112)
        guard case .error(let e5)? = h.request(subscriber, .unpublish(streamId: stream.stream.streamId)) else { Issue.record("no error"); return }
        #expect(e5.code == 1113)
    }

    @Test func relayedSessionsOpenNoMediaLegs() throws {
        let h = try Harness(relayed: true)
        let (a, ra) = try h.join()
        #expect(ra.relayed)
        let published = try h.publish(a)
        #expect(published.media == nil)
        #expect(h.media.publishers.isEmpty)
    }

    @Test func issueReportsAreStoredAndReadable() throws {
        let h = try Harness()
        let (a, ra) = try h.join()
        guard case .issueReported(let issueId)? = h.request(a, .reportIssue(IssueReport(description: "no audio", stats: ["rtt=40"], logs: ["l1"])))
        else { Issue.record("no issue id"); return }
        let response = h.http("GET", "\(h.projectPath)/issues/\(issueId)")
        #expect(response.status == 200)
        #expect(response.object["description"] as? String == "no audio")
        #expect(response.object["connectionId"] as? String == ra.connection.connectionId)
        #expect(response.object["stats"] as? [String] == ["rtt=40"])
        #expect(h.http("GET", "\(h.projectPath)/issues/nope").status == 404)
    }
}
