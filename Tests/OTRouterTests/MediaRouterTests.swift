import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// The SFU end to end with real pipelines on 127.0.0.1: a `PublisherPipeline` (test
/// pattern + tone) → `MediaRouter` → `SubscriberPipeline`s, each configured from its
/// `WireMediaLeg` exactly as a client would. One at a time: each uses a core in real time.
@Suite(.serialized) struct MediaRouterTests {
    @Test func forwardsPictureAndToneToTwoSubscribers() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        #expect(publisherLeg.profile == SRTPProfile.default.rfcName && publisherLeg.clientKey != publisherLeg.routerKey)
        let legA = try router.addAVSubscriber("a")
        let legB = try router.addAVSubscriber("b")
        #expect(Set([publisherLeg.port, legA.port, legB.port]).count == 3, "one port per leg")
        let a = try TestSubscriber(leg: legA)
        let b = try TestSubscriber(leg: legB)
        defer { a.stop(); b.stop() }
        let publisher = try TestPublisher(leg: publisherLeg)
        let sent = publisher.framesSent(0..<120)
        waitForDelivery(of: sent, to: a, b)
        publisher.stop()
        let counters = try #require(router.counters(streamId: "s1"))
        for (name, subscriber) in [("a", a), ("b", b)] {
            let share = subscriber.decoded.share(of: sent)
            #expect(share >= 0.9, "subscriber \(name) decoded \(share) of \(sent.count) frames; router \(counters)")
            #expect(subscriber.decoded.numbersIncrease, "subscriber \(name) frame numbers go up")
            #expect(subscriber.decoded.unreadableFrames == 0)
            let levels = subscriber.decoded.audioLevels
            #expect(levels.count > 100, "subscriber \(name) played \(levels.count) audio frames")
            let frequency = AudioAnalysis.dominantFrequency(samples: Array(subscriber.decoded.audioSamples.suffix(24_000)),
                                                            sampleRate: 48_000)
            #expect(frequency.map { abs($0 - 440) < 5 } == true, "subscriber \(name) hears \(String(describing: frequency)) Hz")
            #expect(subscriber.pipeline.videoCounters.snapshot().badPackets == 0)
            // Lip sync works only with sender reports of both streams under this leg's SSRCs.
            #expect(subscriber.decoded.lipSyncedFrames > 30, "subscriber \(name): \(subscriber.decoded.lipSyncedFrames) frames lip-synced")
        }
        // Probes (the publisher's padding) end at the router: only media is forwarded twice.
        #expect(counters.packetsOut > counters.packetsIn - counters.probesReceived, "both legs were fed: \(counters)")
        #expect(counters.badPackets == 0 && counters.unknownSSRCPackets == 0, "\(counters)")
        #expect(counters.receiverReports > 0, "the subscribers' reports reached the router")
        router.removePublisher(streamId: "s1")
        #expect(router.counters(streamId: "s1") == nil)
        #expect(router.totals.packetsOut >= counters.packetsOut, "removed streams stay in the totals")
    }

    @Test func lossOnOneSubscriberPathIsRepairedFromTheRoutersHistory() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let legA = try router.addAVSubscriber("a")
        let legB = try router.addAVSubscriber("b")
        let a = try TestSubscriber(leg: legA)
        // b's path: media from the router loses 5 %.
        let proxy = try ImpairmentProxy(target: try LegClient.address(legB), reverse: ImpairmentSettings(lossProbability: 0.05), seed: 11)
        let b = try TestSubscriber(leg: legB, feedback: proxy.listenAddress)
        defer { a.stop(); b.stop(); proxy.stop() }
        let publisher = try TestPublisher(leg: publisherLeg)
        var sent = publisher.framesSent(0..<150)
        // The router's probes share b's lossy path, so the seeded 5 % can land on probes
        // only: go on (up to 600 frames) until b has had to NACK a media packet.
        while b.pipeline.videoCounters.snapshot().nacks == 0, sent.count < 600 {
            sent += publisher.framesSent(sent.count..<(sent.count + 150))
        }
        waitForDelivery(of: sent, to: b)
        publisher.stop()
        let counters = try #require(router.counters(streamId: "s1"))
        let lost = proxy.counters(for: .reverse).droppedByLoss
        #expect(lost > 0, "the proxy dropped packets")
        #expect(counters.retransmissions > 0, "the router resent NACKed packets: \(counters)")
        #expect(b.pipeline.videoCounters.snapshot().nacks > 0)
        #expect(b.decoded.share(of: sent) >= 0.9, "the lossy subscriber decoded \(b.decoded.share(of: sent)); \(counters)")
        #expect(a.decoded.share(of: sent) >= 0.9)
        #expect(publisher.pipeline.videoCounters.snapshot().retransmissions == 0, "NACKs were answered by the router, not forwarded")
        router.removePublisher(streamId: "s1")
    }

    @Test func aLateSubscriberStartsFromAKeyframe() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let legA = try router.addAVSubscriber("a")
        let a = try TestSubscriber(leg: legA)
        defer { a.stop() }
        let publisher = try TestPublisher(leg: publisherLeg)
        waitUntil(seconds: 20) { publisher.sent.count >= 60 }
        let requestsBefore = try #require(router.counters(streamId: "s1")).keyframeRequests
        let legB = try router.addAVSubscriber("b")
        let b = try TestSubscriber(leg: legB)
        defer { b.stop() }
        let joinedAt = publisher.sent.count
        // Frames from half a second after the join on (the keyframe needs a round trip).
        let sent = publisher.framesSent((joinedAt + 15)..<(joinedAt + 90))
        waitForDelivery(of: sent, to: b)
        publisher.stop()
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(counters.keyframeRequests > requestsBefore, "the router asked for a keyframe for the newcomer: \(counters)")
        #expect(publisher.pipeline.videoCounters.snapshot().keyframes >= 2, "the publisher sent one")
        #expect(b.pipeline.videoCounters.snapshot().keyframes >= 1)
        #expect(b.decoded.share(of: sent) >= 0.9, "the late subscriber decoded \(b.decoded.share(of: sent))")
        #expect(a.decoded.numbersIncrease && b.decoded.numbersIncrease)
        router.removePublisher(streamId: "s1")
    }

    @Test func forceMuteDropsEveryAudioPacketAndUnmuteResumesWithoutLoss() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let leg = try router.addAVSubscriber("a")
        let subscriber = try TestSubscriber(leg: leg)
        defer { subscriber.stop() }
        let publisher = try TestPublisher(leg: publisherLeg)
        defer { publisher.stop() }
        let audio = { subscriber.pipeline.audioCounters.snapshot() }
        #expect(waitUntil(seconds: 10) { audio().packets > 30 }, "audio flows before the mute")

        router.setAudioMuted(streamId: "s1", true)
        Thread.sleep(forTimeInterval: 0.3)  // packets in flight land
        let packetsAtMute = audio().packets
        let droppedAtMute = try #require(router.counters(streamId: "s1")).mutedAudioDropped
        let publisherAudioAtMute = publisher.pipeline.audioCounters.snapshot().packets
        Thread.sleep(forTimeInterval: 1.5)
        #expect(publisher.pipeline.audioCounters.snapshot().packets > publisherAudioAtMute + 40, "the publisher kept sending audio")
        #expect(audio().packets == packetsAtMute, "no audio reached the subscriber while muted")
        let dropped = try #require(router.counters(streamId: "s1")).mutedAudioDropped
        #expect(dropped > droppedAtMute + 40, "dropped audio is counted: \(dropped)")
        let nacksAtUnmute = subscriber.pipeline.videoCounters.snapshot().nacks
        let retransmissionsAtUnmute = try #require(router.counters(streamId: "s1")).retransmissions

        router.setAudioMuted(streamId: "s1", false)
        #expect(waitUntil(seconds: 5) { audio().packets > packetsAtMute + 50 }, "audio flows again")
        Thread.sleep(forTimeInterval: 1.2)  // a receiver report with the loss figure
        let after = audio()
        // Sequence numbers stay contiguous across the muted gap: nothing looks lost.
        #expect(after.packetsLost <= 2, "the subscriber saw \(after.packetsLost) audio packets lost")
        #expect(subscriber.pipeline.videoCounters.snapshot().nacks - nacksAtUnmute < 10, "no NACK storm")
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(counters.retransmissions - retransmissionsAtUnmute < 10, "\(counters)")
        router.removePublisher(streamId: "s1")
    }

    @Test func junkToEveryLegIsCountedAndChangesNothing() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let leg = try router.addAVSubscriber("a")
        let subscriber = try TestSubscriber(leg: leg)
        defer { subscriber.stop() }
        let publisher = try TestPublisher(leg: publisherLeg)
        let junk = try JunkSender(targets: [try LegClient.address(publisherLeg), try LegClient.address(leg)])
        let sent = publisher.framesSent(0..<90)
        waitForDelivery(of: sent, to: subscriber)
        publisher.stop()
        junk.stop()
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(junk.sent.load(ordering: .relaxed) > 100)
        #expect(counters.badPackets > 50, "junk counted: \(counters)")
        #expect(junk.received.load(ordering: .relaxed) == 0, "unauthenticated senders never become a leg's address")
        #expect(subscriber.decoded.share(of: sent) >= 0.9, "forwarding unaffected: \(subscriber.decoded.share(of: sent))")
        router.removePublisher(streamId: "s1")
    }

    @Test func aPublisherWhoseAddressChangesIsFollowed() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let leg = try router.addAVSubscriber("a")
        let subscriber = try TestSubscriber(leg: leg)
        defer { subscriber.stop() }
        let relay = try SwitchingRelay(target: try LegClient.address(publisherLeg))
        defer { relay.stop() }
        let publisher = try TestPublisher(leg: publisherLeg, destination: relay.listen.localAddress)
        defer { publisher.stop() }
        waitUntil(seconds: 20) { publisher.sent.count >= 45 }
        #expect(waitUntil(seconds: 3) { relay.repliesOnFirst.load(ordering: .relaxed) > 0 }, "the router answers the first path")
        relay.switchToSecondSocket()
        let switchedAt = publisher.sent.count
        let sent = publisher.framesSent((switchedAt + 10)..<(switchedAt + 90))
        waitForDelivery(of: sent, to: subscriber)
        #expect(subscriber.decoded.share(of: sent) >= 0.9, "media from the new address is forwarded")
        #expect(waitUntil(seconds: 3) { relay.repliesOnSecond.load(ordering: .relaxed) > 0 },
                "the router's RTCP follows the publisher to its new address")
        router.removePublisher(streamId: "s1")
    }

    @Test func manyAddRemoveCyclesLeakNoThreadOrDescriptor() throws {
        let router = try MediaRouter()
        // One warm-up cycle: libsrtp and the runtime set themselves up once.
        func cycle(_ index: Int) throws {
            let stream = "s\(index)"
            _ = try router.addPublisher(streamId: stream, audio: true, video: true)
            _ = try router.addSubscriber(subscriberId: "a\(index)", streamId: stream, audio: true, video: true)
            _ = try router.addSubscriber(subscriberId: "b\(index)", streamId: stream, audio: false, video: true)
            router.removeSubscriber(subscriberId: "a\(index)")
            router.removePublisher(streamId: stream)  // takes b with it
        }
        try cycle(0)
        Thread.sleep(forTimeInterval: 0.1)
        let descriptors = ProcessResources.openDescriptors
        let threads = ProcessResources.threads
        for index in 1...40 { try cycle(index) }
        Thread.sleep(forTimeInterval: 0.1)
        // Other suites run in this process meanwhile, their pipes and sockets coming and
        // going; a leak here would be at least 40 descriptors (three sockets a cycle) or
        // 40 threads (one forwarding thread a cycle).
        #expect(ProcessResources.openDescriptors <= descriptors + 8, "descriptors \(descriptors) → \(ProcessResources.openDescriptors)")
        #expect(ProcessResources.threads <= threads + 8, "threads \(threads) → \(ProcessResources.threads)")
        // b's leg went with its publisher: its id is free again, the stream is gone.
        #expect(throws: MediaError.self) { try router.addAVSubscriber("b1") }
    }

    /// Authenticated RTP whose SSRC the router did not assign is dropped and counted; it
    /// still teaches the router the publisher's address (it authenticated), and the
    /// router's receiver report follows it there.
    @Test func rtpWithAnUnknownSSRCIsDroppedAndCounted() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let leg = try router.addAVSubscriber("a")
        let subscriber = try TestSubscriber(leg: leg)
        defer { subscriber.stop() }
        let keys = try LegClient.keys(publisherLeg)
        let sender = try SRTPSession(keys: keys.send, direction: .sender)
        let socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 20)
        let pool = PacketBufferPool(initialCount: 8)
        let batch = UDPMessageBatch(capacity: 8)
        let wrongSSRC = (publisherLeg.videoSSRC ?? 0) &+ 1
        for sequence in 0..<20 {
            let buffer = try #require(pool.take())
            let header = RTPHeader(payloadType: 96, sequenceNumber: UInt16(sequence), timestamp: 0, ssrc: wrongSSRC)
            var length = try header.write(into: buffer.writableBytes)
            for index in length..<(length + 100) { buffer.writableBytes[index] = 0x10 }
            length = try sender.protect(buffer.writableBytes, length: length + 100)
            buffer.setLength(length)
            buffer.peer = try LegClient.address(publisherLeg)
            _ = try socket.send([buffer], batch: batch)
            pool.release(buffer)
        }
        #expect(waitUntil(seconds: 5) { (router.counters(streamId: "s1")?.unknownSSRCPackets ?? 0) == 20 })
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(counters.packetsDropped >= 20 && counters.badPackets == 0, "\(counters)")
        #expect(subscriber.pipeline.videoCounters.snapshot().packets == 0, "nothing was forwarded")
        // The router's RTCP (a receiver report within a second) comes back to this socket.
        var inbound: [PacketBuffer] = []
        for _ in 0..<4 { inbound.append(try #require(pool.take())) }
        let heard = waitUntil(seconds: 3) {
            if case .processed(let n)? = try? socket.receive(into: inbound, batch: batch), n > 0 { return true }
            return false
        }
        #expect(heard, "the router answers the authenticated address")
        router.removePublisher(streamId: "s1")
    }

    @Test func refusesUnknownStreamsAndDuplicates() throws {
        let router = try MediaRouter()
        #expect(throws: MediaError.self) { try router.addSubscriber(subscriberId: "x", streamId: "nope", audio: true, video: true) }
        _ = try router.addPublisher(streamId: "s", audio: true, video: false)
        #expect(throws: MediaError.self) { try router.addPublisher(streamId: "s", audio: true, video: true) }
        _ = try router.addSubscriber(subscriberId: "x", streamId: "s", audio: true, video: false)
        #expect(throws: MediaError.self) { try router.addSubscriber(subscriberId: "x", streamId: "s", audio: true, video: false) }
        #expect(throws: MediaError.self) { try MediaRouter(host: "localhost") }
        router.removeSubscriber(subscriberId: "unknown")  // harmless
        router.removePublisher(streamId: "s")
        router.removePublisher(streamId: "s")  // idempotent
    }
}
