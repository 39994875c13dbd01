import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Synchronization
import Testing
@testable import OTKit

/// Media follows the serving node: a session owned by node 0 with its publisher there and
/// OTKit subscribers whose sockets land on nodes 0, 1 and 2. Nodes 1 and 2 proxy their
/// clients' signaling to node 0 but serve their media themselves, from ONE cascade leg
/// per stream from node 0, however many subscribers they have.
@Suite(.serialized) struct ClusterCascadeTests {
    static let project = ProjectCredentials(apiKey: "7720", apiSecret: "cascade-secret-0123456789abcdef0123456789")
    static let secret = "cluster-cascade-secret-0123456789abcdef"

    @Test func subscribersOnEveryNodeGetTheStreamFromTheirNode() throws {
        try AudioDeviceTestLock.run { try subscribersOnEveryNodeBody() }
    }

    @Test func aCascadeThatCannotOpenIsError1604() throws {
        try AudioDeviceTestLock.run { try cascadeRefusedBody() }
    }

    private func subscribersOnEveryNodeBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let trio = try ClusterTrioRouters(project: Self.project, cascadeSecrets: [Self.secret, Self.secret, Self.secret])
        let kit = trio.kit
        let sessionId = try trio.routers[0].createSession(apiKey: Self.project.apiKey)
        let p = DelegateRecorder()
        let publisherSession = try trio.session(on: 0, sessionId, p)
        try kit.connect(publisherSession, p, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(publisherSession, p, name: "at-0", width: 320, height: 240, fps: 15)

        // Two subscribers through each node; each records the media addresses its legs use.
        var watchers: [(node: Int, session: OTSession, recorder: DelegateRecorder, subscriber: OTSubscriber,
                        render: FrameNumberRender, addresses: AddressLog)] = []
        for node in [0, 0, 1, 1, 2, 2] {
            let recorder = DelegateRecorder(), addresses = AddressLog()
            let session = try Self.session(trio, on: node, sessionId, recorder, addresses)
            try kit.connect(session, recorder, token: try kit.token(sessionId, .subscriber))
            #expect(recorder.wait { $0.contains("streamCreated \(streamId)") })
            let stream = try #require(session.streams[streamId])
            let (subscriber, render) = try kit.subscribeReadingFrameNumbers(session, recorder, stream)
            watchers.append((node, session, recorder, subscriber, render, addresses))
        }
        // Each subscriber's leg is on its own node's media port.
        for watcher in watchers {
            let ports = watcher.addresses.ports
            #expect(!ports.isEmpty && ports.allSatisfy { $0 == trio.routers[watcher.node].mediaPort },
                    "node \(watcher.node): legs at \(ports), media ports \(trio.routers.map(\.mediaPort))")
        }
        // The owner records all six subscriptions; nodes 1 and 2 opened two legs each.
        #expect(trio.routers[0].metrics.subscribers == 6)
        for node in [1, 2] {
            let forwarded = try #require(trio.routers[node].service.forwardingStatistics)
            #expect(forwarded.cascadedSubscribers == 2 && forwarded.cascadeFailures == 0, "node \(node): \(forwarded)")
        }

        // ~10 s of media: every subscriber decodes ≥ 95 % of the frames sent (counted by
        // stamp). Sent: decoded by at least one subscriber — a frame the publisher's encoder
        // skipped on a loaded machine was never sent, and is missing on every node alike.
        #expect(p.wait(90) { _ in watchers.allSatisfy { $0.render.seen.count >= 165 } }, "frames: \(watchers.map(\.render.seen.count))")
        let decoded = watchers.map { Array($0.render.seen.dropFirst(15)) }
        let sent = decoded.reduce(into: Set<UInt32>()) { $0.formUnion($1) }
        for (watcher, numbers) in zip(watchers, decoded) {
            guard let first = numbers.min(), let last = numbers.max() else { Issue.record("node \(watcher.node): no frame"); continue }
            let window = sent.filter { (first...last).contains($0) }
            let share = Double(Set(numbers).count) / Double(max(1, window.count))
            print("node \(watcher.node): decoded \(Set(numbers).count) of \(window.count) frames sent (\(share)); of all stamped: \(decodedShare(numbers))")
            #expect(window.count >= 140 && share >= 0.95, "node \(watcher.node)")
        }

        // One cascade leg per node pair, not one per subscriber.
        let a = try #require(trio.routers[0].metrics.cascade)
        #expect(a.egressLegs == 2 && a.egressOpened == 2 && a.ingressLegs == 0, "\(a)")
        for node in [1, 2] {
            let b = try #require(trio.routers[node].metrics.cascade)
            #expect(b.ingressLegs == 1 && b.ingressOpened == 1 && b.egressLegs == 0, "node \(node): \(b)")
        }
        #expect(a.egressAudioPackets > 0, "audio crossed before the mute")

        // A moderator on node 2: its signal and its force mute cross nodes.
        let m = DelegateRecorder()
        let moderator = try trio.session(on: 2, sessionId, m)
        try kit.connect(moderator, m, token: try kit.token(sessionId, .moderator))
        try moderator.signal(type: "chat", string: "from-2")
        for recorder in [p, watchers[2].recorder] {
            #expect(recorder.wait { $0.contains { $0.hasPrefix("signal chat from ") && $0.hasSuffix(": from-2") } })
        }
        try moderator.forceMuteStream(try #require(moderator.streams[streamId]))
        #expect(p.wait { $0.contains("publisher muteForced") })
        #expect(!publisher.publishAudio)
        // Let what was in flight go (100 more packets), then 300 more carry no audio.
        let muted = try #require(trio.routers[0].metrics.cascade)
        #expect(untilTrue(30) { (trio.routers[0].metrics.cascade?.egressPackets ?? 0) >= muted.egressPackets + 100 })
        let settled = try #require(trio.routers[0].metrics.cascade)
        #expect(untilTrue(30) { (trio.routers[0].metrics.cascade?.egressPackets ?? 0) >= settled.egressPackets + 300 })
        let after = try #require(trio.routers[0].metrics.cascade)
        print("egress after the mute: \(after.egressPackets - settled.egressPackets) packets, \(after.egressAudioPackets - settled.egressAudioPackets) audio")
        #expect(after.egressAudioPackets == settled.egressAudioPackets, "audio packets crossed after the force mute")

        // Both subscribers on node 1 leave: its ingress and node 0's egress toward it close; node 2's stay.
        for watcher in watchers where watcher.node == 1 { try watcher.session.unsubscribe(watcher.subscriber) }
        #expect(untilTrue(30) { trio.routers[1].metrics.cascade?.ingressLegs == 0 && trio.routers[0].metrics.cascade?.egressLegs == 1 },
                "\(String(describing: trio.routers[0].metrics.cascade)) / \(String(describing: trio.routers[1].metrics.cascade))")
        #expect(trio.routers[2].metrics.cascade?.ingressLegs == 1)
        #expect(untilTrue(20) { trio.routers[0].metrics.subscribers == 4 })

        for session in [publisherSession, moderator] + watchers.map(\.session) { session.disconnect() }
        #expect(p.wait { $0.last == "didDisconnect" })
    }

    @Test func aResumedClientsNodeServedSubscriberSubscribesAgainByItself() throws {
        try AudioDeviceTestLock.run { try resumedClientBody() }
    }

    /// A proxied client's socket drops (its relay to node 1 goes silent) and it resumes:
    /// node 1 let its legs go with the socket, so the owner ends those subscriptions with
    /// `mediaFailed` + `resubscribe`; OTKit subscribes the same subscriber again by itself
    /// and the app sees only `subscriberDidDisconnect` and, once the new leg is up,
    /// `subscriberDidReconnect` (no failure). Frames come back on the same renderer.
    private func resumedClientBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let trio = try ClusterTrioRouters(project: Self.project, cascadeSecrets: [Self.secret, Self.secret, Self.secret])
        let kit = trio.kit
        let sessionId = try trio.routers[0].createSession(apiKey: Self.project.apiKey)
        let p = DelegateRecorder(), s = DelegateRecorder()
        let publisherSession = try trio.session(on: 0, sessionId, p)
        try kit.connect(publisherSession, p, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(publisherSession, p, width: 160, height: 120, fps: 15)
        let relay = try TCPRelay(target: "127.0.0.1:\(trio.routers[1].port)")
        defer { relay.stop() }
        let settings = OTSessionSettings()
        settings.routerURL = "http://127.0.0.1:\(relay.port)"
        settings.heartbeatTimeout = 3
        let session = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: s, settings: settings))
        session.apiQueue = s.queue
        try kit.connect(session, s, token: try kit.token(sessionId, .subscriber))
        #expect(s.wait { $0.contains("streamCreated \(streamId)") })
        let stream = try #require(session.streams[streamId])
        let (_, render) = try kit.subscribeReadingFrameNumbers(session, s, stream)
        #expect(s.wait(30) { _ in render.seen.count >= 15 })
        #expect(untilTrue(20) { trio.routers[1].metrics.cascade?.ingressLegs == 1 })

        relay.setBlackhole(true)
        #expect(s.wait(30) { $0.contains("didBeginReconnecting") })
        let before = render.seen.count
        relay.setBlackhole(false)
        #expect(s.wait(60) { $0.contains("didReconnect") }, "\(s.calls)")
        #expect(s.wait(60) { $0.contains("subscriber reconnected") }, "\(s.calls)")
        #expect(s.wait(60) { _ in render.seen.count >= before + 30 }, "frames after the resume: \(before) → \(render.seen.count)")
        let subscriberEvents = s.calls.filter { $0.hasPrefix("subscriber ") && !$0.hasPrefix("subscriber video") }
        #expect(subscriberEvents == ["subscriber connected", "subscriber disconnected", "subscriber reconnected"], "\(subscriberEvents)")
        #expect(session.resubscribes.attempts.load(ordering: .relaxed) >= 1 && session.resubscribes.restored.load(ordering: .relaxed) == 1
                && session.resubscribes.givenUp.load(ordering: .relaxed) == 0)
        // The owner holds the new subscription only (the old one ended with the leg).
        #expect(untilTrue(20) { trio.routers[0].metrics.subscribers == 1 },
                "owner: \(trio.routers[0].metrics.subscribers) subscribers; ingress legs \(trio.routers.map { $0.metrics.cascade?.ingressLegs ?? 0 })")
        for each in [publisherSession, session] { each.disconnect() }
        #expect(p.wait { $0.last == "didDisconnect" })
    }

    /// An OTKit session through node `index` whose media addresses are noted in `addresses`.
    private static func session(_ trio: ClusterTrioRouters, on index: Int, _ sessionId: String, _ recorder: DelegateRecorder,
                                _ addresses: AddressLog) throws -> OTSession {
        let settings = OTSessionSettings()
        settings.routerURL = trio.routers[index].baseURL
        settings.mediaAddressRewrite = { host, port in addresses.note(host, port) }
        let session = try #require(OTSession(apiKey: project.apiKey, sessionId: sessionId, delegate: recorder, settings: settings))
        session.apiQueue = recorder.queue
        return session
    }

    private func cascadeRefusedBody() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        // Node 1 presents a cluster secret node 0 does not share: node 0 refuses its cascade.
        let trio = try ClusterTrioRouters(project: Self.project, cascadeSecrets: [Self.secret, "not-the-cluster-secret", Self.secret])
        let kit = trio.kit
        let sessionId = try trio.routers[0].createSession(apiKey: Self.project.apiKey)
        let p = DelegateRecorder(), s = DelegateRecorder()
        let publisherSession = try trio.session(on: 0, sessionId, p)
        try kit.connect(publisherSession, p, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(publisherSession, p, width: 160, height: 120, fps: 15)
        let session = try trio.session(on: 1, sessionId, s)
        try kit.connect(session, s, token: try kit.token(sessionId, .subscriber))
        #expect(s.wait { $0.contains("streamCreated \(streamId)") })
        let stream = try #require(session.streams[streamId])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: s))
        try session.subscribe(subscriber)
        #expect(s.wait { $0.contains("subscriber didFail 1604") }, "\(s.calls)")
        let forwarded = try #require(trio.routers[1].service.forwardingStatistics)
        #expect(forwarded.cascadeFailures == 1 && forwarded.cascadedSubscribers == 0)
        #expect(trio.routers[0].metrics.cascade?.requestsRefused == 1)
        // Nothing else is disturbed: the owner dropped the subscription, the client still signals.
        #expect(untilTrue(20) { trio.routers[0].metrics.subscribers == 0 })
        #expect(trio.routers[1].metrics.cascade?.ingressLegs == 0)
        try session.signal(type: "still", string: "here")
        #expect(p.wait { $0.contains { $0.hasPrefix("signal still from ") && $0.hasSuffix(": here") } })
        for each in [publisherSession, session] { each.disconnect() }
        #expect(p.wait { $0.last == "didDisconnect" })
    }
}

/// The media addresses one session's legs were given (host and port, before any rewrite).
final class AddressLog: Sendable {
    private let seen = Mutex<[(host: String, port: Int)]>([])

    /// Notes one address and returns it unchanged (a `mediaAddressRewrite`).
    func note(_ host: String, _ port: Int) -> (String, Int) {
        seen.withLock { $0.append((host, port)) }
        return (host, port)
    }

    /// The ports noted so far.
    var ports: [Int] { seen.withLock { $0.map(\.port) } }
}
