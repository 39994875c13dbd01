import OTMedia
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// The SFU forwarding on the one-port edge with real sockets, real ICE-lite checks, real
/// DTLS handshakes and libsrtp2 on both sides (`EdgeClient`s): what a publisher sends
/// reaches every subscriber rewritten for its leg, NACKs are answered from the leg's
/// history, membership changes and force mute behave as on socket legs, and edge legs use
/// the edge's one port and no socket of their own.
@Suite(.serialized) struct MediaRouterEdgeTests {
    /// Sends audio from `publisher` until each subscriber got `count` packets of its leg's
    /// audio SSRC (or 400 packets went); returns what each got.
    func flow(from publisher: EdgeClient, ssrc: UInt32, start: UInt16, to subscribers: [(WireMediaLeg, EdgeClient)],
              count: Int = 20) throws -> (sent: UInt16, received: [[[UInt8]]]) {
        var received = [[[UInt8]]](repeating: [], count: subscribers.count)
        var sequence = start
        while sequence &- start < 400, received.contains(where: { $0.count < count }) {
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: ssrc, payloadType: 111, payload: edgeAudioPayload(sequence)))
            sequence &+= 1
            for (index, (leg, client)) in subscribers.enumerated() {
                while let (packet, isRTCP) = try client.receiveMedia(timeout: 0.005) {
                    if !isRTCP, packet.count >= 12, edgeBE32(packet, 8) == leg.audioSSRC { received[index].append(packet) }
                }
            }
        }
        return (sequence, received)
    }

    @Test func aPublisherOnTheEdgeReachesTwoSubscribersRewrittenForEachLeg() throws {
        let rig = try EdgeRouterRig()
        let (publisherLeg, publisher) = try rig.publisher()
        let a = try rig.subscriber("a"), b = try rig.subscriber("b")
        let audio = try #require(publisherLeg.audioSSRC)
        let (_, received) = try flow(from: publisher, ssrc: audio, start: 1000, to: [a, b])
        for (index, (leg, _)) in [a, b].enumerated() {
            let packets = received[index]
            #expect(packets.count >= 20, "subscriber \(index) got \(packets.count) packets")
            // Each packet is a publisher packet (its payload), under the leg's SSRC and the
            // leg's own, gapless sequence numbers.
            for packet in packets {
                #expect(edgeBE32(packet, 8) == leg.audioSSRC && leg.audioSSRC != audio)
                let payload = edgePayload(packet)
                #expect(payload.count == 44 && payload[0] == 0xAB && payload[3] == 0x5A && Array(payload.suffix(40)) == [UInt8](repeating: 0x11, count: 40))
            }
            let sequences = packets.map { edgeBE16($0, 2) }
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(sequences)")
        }
        #expect(a.0.audioSSRC != b.0.audioSSRC)
        let counters = try #require(rig.router.counters(streamId: "s1"))
        #expect(counters.packetsIn >= 20 && counters.packetsOut >= 40, "\(counters)")
    }

    @Test func aNackFromAnEdgeSubscriberGetsTheExactPacketAgain() throws {
        let rig = try EdgeRouterRig()
        let (publisherLeg, publisher) = try rig.publisher()
        let (leg, subscriber) = try rig.subscriber("a")
        let video = try #require(publisherLeg.videoSSRC), legVideo = try #require(leg.videoSSRC)
        // Video until the leg forwards it; the subscriber "loses" one: it keeps its bytes
        // as they came (protected) and does not unprotect it.
        var lost: [UInt8]?
        var sequence: UInt16 = 500
        while lost == nil, sequence < 900 {
            let payload: [UInt8] = [0x10, 0x00, 0x9D, 0x01, 0x2A] + [UInt8](repeating: UInt8(sequence & 0xFF), count: 60)
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: video, payloadType: 96, payload: payload))
            sequence += 1
            while let datagram = try subscriber.receiveRaw(timeout: 0.005) {
                if datagram.count > 12, datagram[0] & 0xC0 == 0x80, datagram[1] & 0x7F == 96, edgeBE32(datagram, 8) == legVideo {
                    lost = datagram
                }
            }
        }
        let kept = try #require(lost, "no video reached the edge subscriber")
        let missing = edgeBE16(kept, 2)
        // RR + generic NACK (RFC 4585) for that sequence number, over SRTCP.
        var nack: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0x0A, 0x0A]
        nack += [0x81, 205, 0, 3, 0, 0, 0x0A, 0x0A]
        nack += [UInt8(legVideo >> 24), UInt8((legVideo >> 16) & 0xFF), UInt8((legVideo >> 8) & 0xFF), UInt8(legVideo & 0xFF)]
        nack += [UInt8(missing >> 8), UInt8(missing & 0xFF), 0, 0]
        try subscriber.sendRTCP(nack)
        var resent: [UInt8]?
        let clock = SystemMediaClock()
        let deadline = clock.nanoseconds() + 5_000_000_000
        while resent == nil, clock.nanoseconds() < deadline, let datagram = try subscriber.receiveRaw(timeout: 0.5) {
            if datagram.count > 12, edgeBE32(datagram, 8) == legVideo, edgeBE16(datagram, 2) == missing { resent = datagram }
        }
        #expect(resent == kept, "the resend is the packet as first sent (protected once, kept in the history)")
        // The thread counts a resend after its send returns, which can be after the
        // datagram reached the subscriber: wait for the count rather than read it once.
        #expect(waitUntil(seconds: 5) { (rig.router.counters(streamId: "s1")?.retransmissions ?? 0) >= 1 },
                "\(String(describing: rig.router.counters(streamId: "s1")))")
    }

    @Test func aSubscriberLeavingTheEdgeDoesNotStopTheOther() throws {
        let rig = try EdgeRouterRig()
        let (publisherLeg, publisher) = try rig.publisher()
        let a = try rig.subscriber("a"), b = try rig.subscriber("b")
        let audio = try #require(publisherLeg.audioSSRC)
        let (next, before) = try flow(from: publisher, ssrc: audio, start: 1, to: [a, b])
        #expect(before.allSatisfy { $0.count >= 20 })
        #expect(rig.edge.legCount == 3)
        rig.router.removeSubscriber(subscriberId: "b")
        #expect(rig.edge.legCount == 2, "b's leg left the edge")
        _ = try b.1.drainRTP(ssrc: try #require(b.0.audioSSRC))  // what was in flight
        let (_, after) = try flow(from: publisher, ssrc: audio, start: next, to: [a], count: 30)
        #expect(after[0].count >= 30, "a still gets the stream: \(after[0].count)")
        let sequences = (before[0] + after[0]).map { edgeBE16($0, 2) }
        #expect(Set(sequences).count == sequences.count, "a's numbering went on")
        #expect(try b.1.drainRTP(ssrc: try #require(b.0.audioSSRC)).isEmpty, "nothing more for b")
    }

    @Test func forceMuteDropsEdgeAudioAndCountsIt() throws {
        let rig = try EdgeRouterRig()
        let (publisherLeg, publisher) = try rig.publisher()
        let a = try rig.subscriber("a")
        let audio = try #require(publisherLeg.audioSSRC), legAudio = try #require(a.0.audioSSRC)
        let (next, before) = try flow(from: publisher, ssrc: audio, start: 1, to: [a], count: 10)
        #expect(before[0].count >= 10, "audio flows before the mute")
        _ = try a.1.drainRTP(ssrc: legAudio)
        let dropped = try #require(rig.router.counters(streamId: "s1")).mutedAudioDropped
        rig.router.setAudioMuted(streamId: "s1", true)
        for offset in 0 ..< 40 {
            let sequence = next &+ UInt16(offset)
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: audio, payloadType: 111, payload: edgeAudioPayload(sequence)))
        }
        #expect(edgeEventually { (rig.router.counters(streamId: "s1")?.mutedAudioDropped ?? 0) - dropped >= 40 },
                "the router counted the muted packets")
        #expect(try a.1.drainRTP(ssrc: legAudio).isEmpty, "no audio forwarded while muted")
    }

    @Test func edgeLegsShareOnePortOpenNoSocketAndCarryNoKey() throws {
        let rig = try EdgeRouterRig()
        let port = try #require(rig.router.mediaPort)
        #expect(port > 0 && Int(rig.edge.localAddress.port) == port)
        let (_, _, transport) = try EdgeRouterRig.identity()
        var legs = [try rig.router.addPublisher(streamId: "s1", audio: true, video: true, simulcastLayers: 1, transport: transport)]
        for index in 0 ..< 6 {
            let (_, _, own) = try EdgeRouterRig.identity()
            legs.append(try rig.router.addSubscriber(subscriberId: "e\(index)", streamId: "s1", audio: true, video: true, transport: own))
        }
        #expect(rig.router.openSockets == 0, "edge legs open no socket of their own")
        #expect(rig.edge.legCount == legs.count)
        for leg in legs {
            #expect(leg.port == port && leg.host == "127.0.0.1")
            #expect(leg.clientKey == nil && leg.routerKey == nil)
            #expect(leg.transport?.fingerprint == rig.edge.fingerprint.sdpValue)
        }
        #expect(Set(legs.compactMap { $0.transport?.iceUfrag }).count == legs.count, "each leg has its own ICE credentials")
        // An SDES subscriber (no transport) still gets its own socket and keys, and counts.
        let sdes = try rig.router.addSubscriber(subscriberId: "old", streamId: "s1", audio: true, video: true)
        #expect(rig.router.openSockets == 1 && sdes.port != port && sdes.clientKey != nil && sdes.transport == nil)
        rig.router.removePublisher(streamId: "s1")
        #expect(rig.edge.legCount == 0, "the stream's edge legs left with it")
    }

    @Test func aMalformedTransportIsRefusedAndCounted() throws {
        let rig = try EdgeRouterRig()
        let (_, _, good) = try EdgeRouterRig.identity()
        let bad = [
            WireTransport(iceUfrag: "ab", icePassword: good.icePassword, fingerprint: good.fingerprint),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: "short", fingerprint: good.fingerprint),
            WireTransport(iceUfrag: "bad ufrag!", icePassword: good.icePassword, fingerprint: good.fingerprint),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: "sha-1 AB:CD"),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: "sha-256 AB:CD"),
            WireTransport(iceUfrag: good.iceUfrag, icePassword: good.icePassword, fingerprint: String(repeating: "A", count: 100_000)),
        ]
        for transport in bad {
            #expect(throws: MediaError.self) {
                try rig.router.addPublisher(streamId: "s1", audio: true, video: true, simulcastLayers: 1, transport: transport)
            }
        }
        #expect(rig.router.totals.edgeTransportsRejected == UInt64(bad.count))
        #expect(rig.edge.legCount == 0 && rig.router.counters(streamId: "s1") == nil)
        _ = try rig.router.addPublisher(streamId: "s1", audio: true, video: true, simulcastLayers: 1, transport: good)
        #expect(rig.edge.legCount == 1)
        // A router without an edge refuses a transport too.
        let plain = try MediaRouter(host: "127.0.0.1", edge: nil)
        #expect(throws: MediaError.self) {
            try plain.addPublisher(streamId: "s1", audio: true, video: true, simulcastLayers: 1, transport: good)
        }
    }

    @Test func aFailedHandshakeEndsTheLegAsIfItsSubscriberLeft() throws {
        let rig = try EdgeRouterRig()
        let (publisherLeg, publisher) = try rig.publisher()
        let a = try rig.subscriber("a")
        // "b" announces one certificate and handshakes with another: the edge refuses it.
        let (credentials, _, transport) = try EdgeRouterRig.identity()
        let leg = try rig.router.addSubscriber(subscriberId: "b", streamId: "s1", audio: true, video: true, transport: transport)
        #expect(rig.router.status(subscriberId: "b") != nil && rig.edge.legCount == 3)
        let impostor = try DTLSCertificate(commonName: "not the announced one")
        // The client may believe it connected (its last flight goes before the edge checks
        // the certificate); the edge's verdict is what counts.
        _ = try? EdgeRouterRig.client(for: leg, credentials: credentials, certificate: impostor)
        #expect(edgeEventually { rig.router.totals.edgeLegsEnded == 1 && rig.router.status(subscriberId: "b") == nil },
                "ended: \(rig.router.totals.edgeLegsEnded)")
        #expect(rig.edge.legCount == 2, "b's leg left the edge")
        // The stream and its other subscriber go on.
        let (_, received) = try flow(from: publisher, ssrc: try #require(publisherLeg.audioSSRC), start: 1, to: [a], count: 10)
        #expect(received[0].count >= 10)
    }

    /// A leg whose ICE consent lapses (its client cut off) is not removed: the router sends
    /// it nothing (counted) while the stream and subscription stay, and the client's next
    /// valid check brings media back to the same leg without re-registering. Only
    /// signaling removes it (memory stays bounded).
    @Test func aLegWhoseConsentLapsesGetsNothingUntilItsClientChecksAgain() throws {
        // Consent for 1 s after the last valid check.
        let rig = try EdgeRouterRig(consentTimeout: 1_000_000_000)
        let (publisherLeg, publisher) = try rig.publisher()
        let (subscriberLeg, subscriber) = try rig.subscriber("a")
        let audio = try #require(publisherLeg.audioSSRC)
        let subscriberAudio = try #require(subscriberLeg.audioSSRC)
        #expect(rig.router.status(subscriberId: "a") != nil && rig.edge.legCount == 2)
        // The publisher keeps its consent with checks; the subscriber sends none: it lapses.
        let lapsed = edgeEventually(15) {
            _ = try? publisher.checkICE(timeout: 0.2)
            return rig.edge.counters.consentLapses == 1
        }
        #expect(lapsed, "the silent subscriber's consent lapsed: \(rig.edge.counters)")
        #expect(rig.router.status(subscriberId: "a") != nil && rig.router.counters(streamId: "s1") != nil)
        #expect(rig.edge.legCount == 2 && rig.router.totals.edgeLegsEnded == 0, "nothing was removed")
        // The publisher's media is forwarded to nobody: the lapsed leg gets nothing, counted.
        #expect(try publisher.checkICE())
        for sequence in UInt16(1) ... 30 {
            try publisher.sendRTP(edgeRTP(sequence: sequence, ssrc: audio, payloadType: 111, payload: edgeAudioPayload(sequence)))
        }
        #expect(edgeEventually { rig.router.totals.edgeSendsWithheld > 0 }, "withheld: \(rig.router.totals.edgeSendsWithheld)")
        #expect(try subscriber.drainRTP(ssrc: subscriberAudio, quiet: 0.3).isEmpty, "nothing reached the lapsed leg")
        // The subscriber's client checks again: consent returns and media flows to the same leg.
        #expect(try subscriber.checkICE())
        #expect(try publisher.checkICE())
        #expect(edgeEventually { rig.edge.counters.consentRestored == 1 })
        let (_, received) = try flow(from: publisher, ssrc: audio, start: 100, to: [(subscriberLeg, subscriber)], count: 10)
        #expect(received[0].count >= 10, "media flows again: \(received[0].count)")
        #expect(rig.edge.legCount == 2 && rig.router.totals.edgeLegsEnded == 0)
        // Signaling removing the stream is what frees the legs.
        rig.router.removePublisher(streamId: "s1")
        #expect(rig.edge.legCount == 0)
    }
}
