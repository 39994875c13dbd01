import Foundation
import OTMedia
@testable import OTRouter
import Synchronization
import Testing

/// Where a subscriber leg sends, on a real media path: one authenticated datagram from a
/// new source (a spoofed or replayed one) moves nothing; a client that keeps sending from
/// its new address (a NAT rebinding) is followed after the probation; a leg moves at most
/// once per 5 s; moves are counted and logged.
@Suite(.serialized) struct SFULegAddressTests {
    /// Sends a report from socket `index` every 100 ms for `seconds`; returns early when
    /// `until` holds (checked after each report).
    @discardableResult
    func keepReporting(_ client: RawLegClient, via index: Int, seconds: Double, until: () -> Bool = { false }) -> Bool {
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            client.sendReport(via: index)
            if until() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return until()
    }

    @Test func aLegMovesOnlyAfterItsProbationAndAtMostOncePerFiveSeconds() throws {
        let lines = LinesBox()
        let router = try MediaRouter(log: RouterLog(level: .info) { lines.append($0) })
        let publisherLeg = try router.addAVPublisher()
        let client = try RawLegClient(leg: try router.addAVSubscriber("b"), sockets: 3)
        defer { client.stop() }
        let publisher = try TestPublisher(leg: publisherLeg)
        defer { publisher.stop() }
        func received(_ index: Int) -> Int { client.datagrams(index) }
        func counters() -> ForwardingCounters { router.counters(streamId: "s1") ?? ForwardingCounters() }

        // The first authenticated datagram sets the address.
        #expect(keepReporting(client, via: 0, seconds: 5) { received(0) > 20 }, "media reaches the first address")

        // One spoofed datagram from elsewhere while the client goes on reporting from its
        // address: held, nothing goes there.
        client.sendReport(via: 1)
        #expect(waitUntil(seconds: 3) { counters().addressDatagramsHeld >= 1 }, "the datagram authenticated and was held")
        let before = received(0)
        keepReporting(client, via: 0, seconds: 1.5)
        #expect(received(1) == 0, "the leg did not follow one datagram")
        #expect(received(0) > before, "media still goes to the first address")
        #expect(counters().addressMoves == 0)

        // The client moves (NAT rebinding): it keeps reporting from the new address only.
        let rebound = Date()
        client.sendReport(via: 1)
        client.sendReport(via: 1)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(received(1) == 0, "3 datagrams within 200 ms are not yet a probation")
        #expect(keepReporting(client, via: 1, seconds: 6) { received(1) > 0 }, "the leg follows a sustained new address")
        let movedAt = Date()
        let moveTook = movedAt.timeIntervalSince(rebound)
        #expect(moveTook >= 0.9, "not before the 1 s probation: \(moveTook) s")
        #expect(counters().addressMoves == 1)
        Thread.sleep(forTimeInterval: 1)  // what was in flight to the old address is counted
        let oldAfterMove = received(0)
        keepReporting(client, via: 1, seconds: 1)
        #expect(received(0) == oldAfterMove, "nothing more goes to the old address")
        let moved = lines.all.filter { $0.contains("\"media.leg.moved\"") && $0.contains("subscriber b") }
        #expect(moved.count == 1, "the move is logged: \(lines.all)")

        // A second move within 5 s of the first is held, however long the probation.
        keepReporting(client, via: 2, seconds: 2)
        #expect(received(2) == 0, "held by the rate limit")
        #expect(counters().addressMoves == 1)
        #expect(keepReporting(client, via: 2, seconds: 8) { received(2) > 0 }, "moves once 5 s have passed")
        let secondTook = Date().timeIntervalSince(movedAt)
        #expect(secondTook >= 4.0, "the second move waited for the rate limit: \(secondTook) s after the first")
        #expect(counters().addressMoves == 2)
        var metrics = RouterMetrics()
        metrics.media = router.totals
        let text = PrometheusText.render(metrics)
        #expect(text.contains("otkit_leg_address_moves_total 2"), "/metrics counts the moves")
        #expect(text.contains("otkit_leg_address_held_packets_total \(metrics.media.addressDatagramsHeld)"))
        #expect(metrics.media.addressDatagramsHeld >= 3, "the spoofed datagram and the probations' datagrams")
        print("leg address: NAT rebinding followed after \(moveTook) s; second move \(secondTook) s after the first; "
              + "held datagrams \(counters().addressDatagramsHeld)")
        router.removePublisher(streamId: "s1")
    }

    /// The publisher leg learns from RTP and RTCP alike: one authenticated RTP packet from
    /// another socket (the client's keys, a fresh SSRC so SRTP's replay check passes) does
    /// not turn the router's RTCP (transport-wide feedback every 50 ms, reports every
    /// second) towards that socket.
    @Test func oneAuthenticatedPacketFromElsewhereDoesNotMoveThePublisherLeg() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let publisher = try TestPublisher(leg: publisherLeg)
        defer { publisher.stop() }
        _ = publisher.framesSent(0..<15)
        let sender = try SRTPSession(keys: try LegClient.keys(publisherLeg).send, direction: .sender)
        let spoofer = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 20)
        defer { spoofer.close() }
        let pool = PacketBufferPool(initialCount: 8)
        let batch = UDPMessageBatch(capacity: 8)
        let buffer = try #require(pool.take())
        let header = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: (publisherLeg.videoSSRC ?? 0) &+ 7)
        let length = try header.write(into: buffer.writableBytes)
        buffer.setLength(try sender.protect(buffer.writableBytes, length: length + 20))
        buffer.peer = try LegClient.address(publisherLeg)
        #expect(try spoofer.send([buffer], batch: batch).count == 1)
        #expect(waitUntil(seconds: 3) { (router.counters(streamId: "s1")?.addressDatagramsHeld ?? 0) >= 1 },
                "the packet authenticated and was held")
        var inbound: [PacketBuffer] = []
        for _ in 0..<4 { inbound.append(try #require(pool.take())) }
        let heard = waitUntil(seconds: 2) {
            if case .processed(let n)? = try? spoofer.receive(into: inbound, batch: batch), n > 0 { return true }
            return false
        }
        #expect(!heard, "the router's RTCP stays on the publisher's path")
        #expect(router.counters(streamId: "s1")?.addressMoves == 0)
        router.removePublisher(streamId: "s1")
    }
}
