import OTNet
@testable import OTRouter
import OTSignaling
import Testing

@Suite struct ModerationTests {
    @Test func nonModeratorsAreRefused() throws {
        let h = try Harness()
        let (a, _) = try h.join()
        let (_, rb) = try h.join()
        let cases: [(ClientMessage, Int)] = [(.forceMuteAll(excludedStreamIds: []), 1540), (.forceMuteStream(streamId: "x"), 1540),
                                             (.disableForceMute, 1540), (.forceDisconnect(connectionId: rb.connection.connectionId), 1520)]
        for (message, code) in cases {
            guard case .error(let error)? = h.request(a, message) else { Issue.record("\(message) accepted"); continue }
            #expect(error.code == code)
        }
        #expect(h.service.metrics.connections == 2)
    }

    @Test func muteAllWithExclusionsThenLatePublisherThenDisable() throws {
        let h = try Harness()
        let (mod, _) = try h.join(.moderator)
        let (a, _) = try h.join()
        let (b, _) = try h.join()
        let sa = try h.publish(a).stream.streamId
        let sb = try h.publish(b).stream.streamId
        [mod, a, b].forEach { $0.clear() }
        #expect(h.request(mod, .forceMuteAll(excludedStreamIds: [sb])) == .ok)
        #expect(h.media.muted == [sa])
        #expect(a.events == [.muteForced(streamId: sa, active: true), .muteForced(streamId: nil, active: true)])
        #expect(b.events == [.muteForced(streamId: nil, active: true)])
        #expect(mod.events == [.muteForced(streamId: nil, active: true)])

        // A stream published while mute-all is active starts muted.
        let (c, rc) = try h.join()
        #expect(rc.forceMuteAll)
        let late = try h.publish(c)
        #expect(late.muted)
        #expect(h.media.muted == [sa, late.stream.streamId])

        [mod, a, b, c].forEach { $0.clear() }
        #expect(h.request(mod, .disableForceMute) == .ok)
        #expect(h.media.muted.isEmpty)
        for peer in [mod, a, b, c] { #expect(peer.events == [.muteForced(streamId: nil, active: false)]) }
        #expect(!(try h.publish(mod).muted))
    }

    @Test func muteOneStream() throws {
        let h = try Harness()
        let (mod, _) = try h.join(.moderator)
        let (a, _) = try h.join()
        let sa = try h.publish(a).stream.streamId
        [mod, a].forEach { $0.clear() }
        #expect(h.request(mod, .forceMuteStream(streamId: sa)) == .ok)
        #expect(h.media.muted == [sa])
        #expect(a.events == [.muteForced(streamId: sa, active: true)])
        #expect(mod.events.isEmpty)
        // The publisher turning audio back on (the user unmuting) lifts the router's mute.
        #expect(h.request(a, .streamChanged(StreamChange(streamId: sa, hasAudio: true, hasVideo: nil))) == .ok)
        #expect(h.media.muted.isEmpty)
        guard case .error(let error)? = h.request(mod, .forceMuteStream(streamId: "nope")) else { Issue.record("accepted"); return }
        #expect(error.code == 1011)
    }

    @Test func forceDisconnect() throws {
        let h = try Harness()
        let (mod, _) = try h.join(.moderator)
        let (a, ra) = try h.join()
        let (b, _) = try h.join()
        let sa = try h.publish(a).stream.streamId
        [mod, a, b].forEach { $0.clear() }
        #expect(h.request(mod, .forceDisconnect(connectionId: ra.connection.connectionId)) == .ok)
        #expect(a.events == [.disconnected(reason: "forceDisconnected", code: nil)])
        #expect(a.isClosed)
        for peer in [mod, b] {
            #expect(peer.events == [.streamDestroyed(streamId: sa, reason: "forceDisconnected"),
                                    .connectionDestroyed(connectionId: ra.connection.connectionId, reason: "forceDisconnected")])
        }
        #expect(h.media.publishers.isEmpty)
        h.service.webSocketClosed(a)
        #expect(h.service.metrics.connections == 2)
        guard case .error(let error)? = h.request(mod, .forceDisconnect(connectionId: "nope")) else { Issue.record("accepted"); return }
        #expect(error.code == 1011)
    }
}
