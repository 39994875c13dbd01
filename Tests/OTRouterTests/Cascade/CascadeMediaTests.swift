import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Synchronization
import Testing

/// Three `MediaRouter`s in one process on 127.0.0.1, media cascaded between them: a real
/// publisher (test pattern + tone) on A, real subscriber pipelines on B and C attached
/// with `addSubscriber` exactly as to a local stream. The control calls go through
/// `CascadeControl`'s wire format with the cluster secret; the legs are ICE + DTLS-SRTP
/// from B and C to A's one-port edge. One at a time: each uses a core in real time.
@Suite(.serialized) struct CascadeMediaTests {
    static let secret = "cluster-secret-for-tests"

    /// Routers A (origin), B and C, and A's control reached with the right secret.
    struct Rig {
        let a: MediaRouter
        let b: MediaRouter
        let c: MediaRouter
        let control: CascadeControl
        let origin: CascadeControlOrigin

        init() throws {
            a = try MediaRouter()
            b = try MediaRouter()
            c = try MediaRouter()
            control = CascadeControl(router: a, secret: CascadeMediaTests.secret)
            origin = .local(control, secret: CascadeMediaTests.secret)
        }
    }

    @Test func subscribersOnTwoOtherNodesDecodeOverOneLegPerNode() throws {
        let rig = try Rig()
        let publisher = try TestPublisher(leg: rig.a.addAVPublisher("s1"))
        defer { publisher.stop() }
        try rig.b.openCascadeIngress(streamId: "s1", node: "b", origin: rig.origin)
        try rig.c.openCascadeIngress(streamId: "s1", node: "c", origin: rig.origin)
        try rig.b.openCascadeIngress(streamId: "s1", node: "b", origin: rig.origin)  // a second open is a no-op
        var subscribers: [(String, TestSubscriber)] = []
        for id in ["b1", "b2", "b3"] { subscribers.append((id, try TestSubscriber(leg: rig.b.addAVSubscriber(id, to: "s1")))) }
        subscribers.append(("c1", try TestSubscriber(leg: rig.c.addAVSubscriber("c1", to: "s1"))))
        let local = try TestSubscriber(leg: rig.a.addAVSubscriber("a1", to: "s1"))
        subscribers.append(("a1", local))
        defer { for (_, subscriber) in subscribers { subscriber.stop() } }
        // Frames captured once every subscriber is attached: 4 s at 30 fps.
        let sent = publisher.framesSent(publisher.sent.count + 15 ..< publisher.sent.count + 135)
        let all = waitUntil(seconds: 30) { subscribers.allSatisfy { $0.1.decoded.share(of: sent) >= 0.95 } }
        let aCascade = rig.a.cascadeCounters.snapshot
        for (id, subscriber) in subscribers {
            let share = subscriber.decoded.share(of: sent)
            print("cascade: \(id) decoded \(Int(share * 100)) % of \(sent.count) frames")
            #expect(share >= 0.95, "\(id) decoded \(share) of \(sent.count) frames; A \(aCascade)")
            #expect(subscriber.decoded.numbersIncrease && subscriber.decoded.unreadableFrames == 0, "\(id)")
            #expect(subscriber.decoded.audioLevels.count > 50, "\(id) played \(subscriber.decoded.audioLevels.count) audio frames")
        }
        #expect(all)
        // One egress per peer node, however many subscribers it has (B has 3).
        #expect(aCascade.egressLegs == 2, "\(aCascade)")
        #expect(rig.a.cascadeEgressNodes(streamId: "s1") == ["b", "c"])
        #expect(aCascade.egressOpened == 2 && aCascade.egressPackets > 200 && aCascade.egressBytes > 100_000, "\(aCascade)")
        #expect(rig.b.cascadeCounters.snapshot.ingressLegs == 1 && rig.c.cascadeCounters.snapshot.ingressLegs == 1)
        #expect(rig.b.cascadeCounters.snapshot.ingressPackets > 200, "\(rig.b.cascadeCounters.snapshot)")
        #expect(rig.b.isCascaded(streamId: "s1") && !rig.a.isCascaded(streamId: "s1"))
        // A forwards to its own subscriber and the two egress legs: 3 legs, not 5.
        let bCounters = try #require(rig.b.counters(streamId: "s1"))
        #expect(bCounters.badPackets == 0 && bCounters.unknownSSRCPackets == 0, "B: \(bCounters)")
        #expect(rig.b.openSockets == 4, "B: one ingress socket and three subscriber sockets, got \(rig.b.openSockets)")
    }

    @Test func pictureLossOnTheReceivingNodeReachesTheOriginsPublisher() throws {
        let rig = try Rig()
        let publisher = try TestPublisher(leg: rig.a.addAVPublisher("s1"))
        defer { publisher.stop() }
        try rig.b.openCascadeIngress(streamId: "s1", node: "b", origin: rig.origin)
        let first = try TestSubscriber(leg: rig.b.addAVSubscriber("b1", to: "s1"))
        defer { first.stop() }
        #expect(waitUntil(seconds: 30) { first.decoded.frameNumbers.count >= 30 }, "b1 decodes")
        // Quiet: nobody asks for a keyframe for a while (the publisher makes one only when asked).
        var before = publisher.pipeline.videoCounters.snapshot()
        waitUntil(seconds: 60) {
            let now = publisher.pipeline.videoCounters.snapshot()
            defer { before = now }
            Thread.sleep(forTimeInterval: 0.5)
            return now.keyframeRequests == before.keyframeRequests && now.keyframes == before.keyframes
        }
        let requestsBefore = rig.b.counters(streamId: "s1")?.keyframeRequests ?? 0
        let keyframesBefore = publisher.pipeline.videoCounters.snapshot().keyframes
        // A new subscriber on B needs a keyframe: its PLI goes B → A's egress → A's publisher.
        let second = try TestSubscriber(leg: rig.b.addAVSubscriber("b2", to: "s1"))
        defer { second.stop() }
        #expect(waitUntil(seconds: 30) { publisher.pipeline.videoCounters.snapshot().keyframes > keyframesBefore },
                "A's publisher made a keyframe")
        #expect(waitUntil(seconds: 30) { second.decoded.frameNumbers.count >= 30 }, "b2 decodes after its keyframe")
        let requestsAfter = rig.b.counters(streamId: "s1")?.keyframeRequests ?? 0
        print("cascade: B sent \(requestsAfter - requestsBefore) PLI upstream; publisher keyframes \(keyframesBefore) → " +
              "\(publisher.pipeline.videoCounters.snapshot().keyframes)")
        #expect(requestsAfter > requestsBefore, "B asked its origin for a keyframe")
        #expect(rig.a.cascadeCounters.snapshot.egressLegs == 1)
    }

    @Test func theOriginEndingItsStreamEndsTheReceivingNodesSubscribers() throws {
        let rig = try Rig()
        let ended = Mutex<[MediaLegEnded]>([])
        rig.b.setLegEndedHandler { event in ended.withLock { $0.append(event) } }
        let publisher = try TestPublisher(leg: rig.a.addAVPublisher("s1"))
        defer { publisher.stop() }
        try rig.b.openCascadeIngress(streamId: "s1", node: "b", origin: rig.origin)
        let subscriber = try TestSubscriber(leg: rig.b.addAVSubscriber("b1", to: "s1"))
        defer { subscriber.stop() }
        #expect(waitUntil(seconds: 30) { subscriber.decoded.frameNumbers.count >= 30 })
        rig.a.removePublisher(streamId: "s1")  // the origin's stream ends: its egress sends a BYE
        #expect(waitUntil(seconds: 20) { !rig.b.isCascaded(streamId: "s1") }, "B's ingress ended")
        #expect(rig.b.counters(streamId: "s1") == nil && rig.b.status(subscriberId: "b1") == nil, "B's group and subscriber legs are gone")
        #expect(waitUntil(seconds: 20) { !ended.withLock { $0 }.isEmpty })
        #expect(ended.withLock { $0 }.contains { if case .publisher(let stream, _) = $0 { stream == "s1" } else { false } },
                "B's signaling hears the stream went, as for a local publisher: \(ended.withLock { $0 })")
        #expect(rig.a.cascadeCounters.snapshot.egressLegs == 0)
        let b = rig.b.cascadeCounters.snapshot
        #expect(b.ingressLegs == 0 && b.ingressEnded == 1, "\(b)")
        #expect(rig.b.openSockets == 0, "the ingress socket closed, got \(rig.b.openSockets)")
        // And a subscriber for it now is refused like one for any unknown stream.
        #expect(throws: MediaError.self) { try rig.b.addAVSubscriber("b2", to: "s1") }
    }

    @Test func anOriginThatGoesSilentWithoutABYEIsEndedWhenConsentLapses() throws {
        let rig = try Rig()
        let ended = Mutex<[MediaLegEnded]>([])
        rig.b.setLegEndedHandler { event in ended.withLock { $0.append(event) } }
        let publisher = try TestPublisher(leg: rig.a.addAVPublisher("s1"))
        defer { publisher.stop() }
        let consent = ICEConsentKeeper.Timing(interval: 300_000_000, jitter: 0.2, timeout: 2_000_000_000)
        try rig.b.openCascadeIngress(streamId: "s1", node: "b", origin: rig.origin, consent: consent)
        let subscriber = try TestSubscriber(leg: rig.b.addAVSubscriber("b1", to: "s1"))
        defer { subscriber.stop() }
        #expect(waitUntil(seconds: 30) { subscriber.decoded.frameNumbers.count >= 30 })
        // Consent holds while A answers: several intervals pass and the ingress stays.
        let decoded = subscriber.decoded.frameNumbers.count
        #expect(waitUntil(seconds: 30) { subscriber.decoded.frameNumbers.count >= decoded + 90 })
        #expect(rig.b.isCascaded(streamId: "s1"), "consent answered: the ingress stays")
        // A's edge dies (as under SIGKILL: no BYE, no answers): B notices when consent lapses.
        rig.a.edge?.stop()
        #expect(waitUntil(seconds: 30) { !rig.b.isCascaded(streamId: "s1") }, "B's ingress ended on lost consent")
        #expect(rig.b.status(subscriberId: "b1") == nil && rig.b.openSockets == 0)
        #expect(waitUntil(seconds: 20) { ended.withLock { $0 }.contains { if case .publisher("s1", _) = $0 { true } else { false } } })
    }

    @Test func theLastLocalSubscriberLeavingClosesIngressAndEgressAfterTheLinger() throws {
        let rig = try Rig()
        let publisher = try TestPublisher(leg: rig.a.addAVPublisher("s1"))
        defer { publisher.stop() }
        try rig.b.openCascadeIngress(streamId: "s1", node: "b", origin: rig.origin, linger: 200_000_000)
        try rig.c.openCascadeIngress(streamId: "s1", node: "c", origin: rig.origin, linger: 200_000_000)
        let b1 = try TestSubscriber(leg: rig.b.addAVSubscriber("b1", to: "s1"))
        let c1 = try TestSubscriber(leg: rig.c.addAVSubscriber("c1", to: "s1"))
        defer { b1.stop(); c1.stop() }
        #expect(waitUntil(seconds: 30) { b1.decoded.frameNumbers.count >= 10 && c1.decoded.frameNumbers.count >= 10 })
        #expect(rig.a.cascadeCounters.snapshot.egressLegs == 2)
        rig.b.removeSubscriber(subscriberId: "b1")
        #expect(waitUntil(seconds: 20) { !rig.b.isCascaded(streamId: "s1") }, "B's ingress closed after its linger")
        #expect(waitUntil(seconds: 20) { rig.a.cascadeCounters.snapshot.egressLegs == 1 }, "A closed B's egress")
        #expect(rig.a.cascadeEgressNodes(streamId: "s1") == ["c"])
        // C, which still has a subscriber, keeps its copy.
        let decoded = c1.decoded.frameNumbers.count
        #expect(waitUntil(seconds: 20) { c1.decoded.frameNumbers.count >= decoded + 30 }, "C still decodes")
        #expect(rig.c.isCascaded(streamId: "s1"))
    }

    /// An origin that notes the preferences it is sent, then passes every call on.
    final class NotingOrigin: CascadeOrigin, @unchecked Sendable {
        let inner: CascadeControlOrigin
        let sent = Mutex<[(width: Int?, height: Int?, frameRate: Double?)]>([])
        init(_ inner: CascadeControlOrigin) { self.inner = inner }
        func openEgress(streamId: String, node: String, transport: WireTransport) throws(MediaError) -> WireMediaLeg {
            try inner.openEgress(streamId: streamId, node: node, transport: transport)
        }
        func closeEgress(streamId: String, node: String) { inner.closeEgress(streamId: streamId, node: node) }
        func setPreferences(streamId: String, node: String, width: Int?, height: Int?, frameRate: Double?) {
            sent.withLock { $0.append((width, height, frameRate)) }
            inner.setPreferences(streamId: streamId, node: node, width: width, height: height, frameRate: frameRate)
        }
        var last: (width: Int?, height: Int?, frameRate: Double?)? { sent.withLock { $0.last } }
    }

    @Test func preferencesOfTheReceivingNodeTravelUpstreamAsTheirAggregate() throws {
        let rig = try Rig()
        let origin = NotingOrigin(rig.origin)
        let publisher = try TestPublisher(leg: rig.a.addAVPublisher("s1"))
        defer { publisher.stop() }
        try rig.b.openCascadeIngress(streamId: "s1", node: "b", origin: origin)
        let b1 = try TestSubscriber(leg: rig.b.addAVSubscriber("b1", to: "s1"))
        let b2 = try TestSubscriber(leg: rig.b.addAVSubscriber("b2", to: "s1"))
        defer { b1.stop(); b2.stop() }
        #expect(waitUntil(seconds: 30) { b1.decoded.frameNumbers.count >= 10 && b2.decoded.frameNumbers.count >= 10 })
        // b2 has said nothing yet: no limit. Both limited: the largest of the two goes up.
        rig.b.setPreferences(subscriberId: "b1", width: 160, height: 120, frameRate: 15)
        #expect(waitUntil(seconds: 20) { origin.sent.withLock { $0.count } >= 1 })
        #expect(origin.last.map { $0.width == nil && $0.height == nil && $0.frameRate == nil } == true, "\(String(describing: origin.last))")
        rig.b.setPreferences(subscriberId: "b2", width: 320, height: 240, frameRate: 7.5)
        #expect(waitUntil(seconds: 20) { origin.last.map { $0.width == 320 && $0.height == 240 && $0.frameRate == 15 } == true },
                "\(String(describing: origin.last))")
        // The one wanting more leaves: the aggregate follows the one left.
        rig.b.removeSubscriber(subscriberId: "b2")
        rig.b.setPreferences(subscriberId: "b1", width: 160, height: 120, frameRate: 10)
        #expect(waitUntil(seconds: 20) { origin.last.map { $0.width == 160 && $0.height == 120 && $0.frameRate == 10 } == true },
                "\(String(describing: origin.last))")
        // The egress leg on A took them: its frames still arrive (one layer, nothing to thin).
        let count = b1.decoded.frameNumbers.count
        #expect(waitUntil(seconds: 20) { b1.decoded.frameNumbers.count >= count + 10 })
        #expect(rig.a.cascadeCounters.snapshot.requestsRefused == 0)
    }
}
