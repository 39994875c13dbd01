import Foundation
import Testing
@testable import OTMedia

/// A relayed receiver holds its own keys, so it can send authenticated RTCP from any
/// source it likes. The publisher must not follow one such datagram: its media and the
/// resends a NACK asks for would go to a third party. A new address has to pass the
/// `LegAddressGuard` probation (≥ 3 datagrams over ≥ 1 s, the old path silent) before
/// the receiver moves; until then everything is answered at the current address.
@Suite struct RelayedReceiverAddressTests {
    typealias RawReceiver = RelayedReceiverKeysTests.RawReceiver

    @Test func oneDatagramFromANewSourceMovesNothingAndAProbationMovesTheReceiver() throws {
        let master = SRTPLegKeys.random(profile: .aeadAES128GCM)
        let (publisher, configuration) = try RelayedReceiverKeysTests.startRelayedPublisher(master: master)
        defer { publisher.stop() }
        let address = publisher.localAddress

        let receiver = try RawReceiver(ssrc: 0xA0A0_0001, master: master)
        receiver.report(to: address)
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.transportCounters.snapshot().relayedDestinations == 1 })
        let toReceiver = try receiver.collectRTP(count: 30)
        #expect(toReceiver.count >= 30, "media reaches the receiver: \(toReceiver.count)")

        // The same receiver's keys on another socket (what the receiver itself could do to
        // aim its leg at a victim). Its first SRTCP indices replay the receiver's and are
        // refused; it sends until one authenticates and is held.
        let elsewhere = try RawReceiver(ssrc: receiver.ssrc, master: master)
        let videoSSRC = configuration.videoStream.ssrc
        var held = false
        for _ in 0..<8 where !held {
            elsewhere.report(to: address)
            held = TransportTestSupport.waitUntil(seconds: 1) { publisher.transportCounters.snapshot().relayedAddressHeld >= 1 }
        }
        #expect(held, "an authenticated datagram from the new source is held in probation")
        let lost = try #require(toReceiver.compactMap { packet -> UInt16? in
            guard packet.count > 12, UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8
                | UInt32(packet[11]) == videoSSRC else { return nil }
            return try? RelayedReceiverKeysTests.unprotect(packet, with: receiver.keys.receive)
        }.last, "a video packet reached the receiver")
        let resendsBefore = publisher.videoCounters.snapshot().retransmissions
        elsewhere.nack(lost, of: videoSSRC, to: address)
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.videoCounters.snapshot().retransmissions > resendsBefore },
                "the NACK is answered")
        #expect(try elsewhere.collectRTP(count: 1, seconds: 0.5).isEmpty, "neither media nor the resend goes to the new source")
        let snapshot = publisher.transportCounters.snapshot()
        #expect(snapshot.relayedAddressMoves == 0 && snapshot.relayedDestinations == 1)
        #expect(try receiver.collectRTP(count: 10).count >= 10, "media still goes to the receiver's own address")

        // A real move: the old path goes silent and the new one keeps reporting for over a
        // second. Then media follows it.
        for _ in 0..<6 {
            elsewhere.report(to: address)
            Thread.sleep(forTimeInterval: 0.3)
        }
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.transportCounters.snapshot().relayedAddressMoves == 1 },
                "the probation passed: one move")
        _ = try receiver.collectRTP(count: 1000, seconds: 0.3)  // what was already on its way
        #expect(try elsewhere.collectRTP(count: 20).count >= 20, "media follows the receiver to its new address")
        #expect(publisher.transportCounters.snapshot().relayedDestinations == 1, "moved, not added")
    }
}
