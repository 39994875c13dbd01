import Foundation
import OTMedia
@testable import OTRouter
import Synchronization
import Testing

/// The router's resends on a real media path (real publisher, libvpx, libsrtp2): a
/// subscriber that NACKs every packet 20 times gets no more than its budget, the refusals
/// are counted and exported, and the stream's other subscriber does not notice.
@Suite(.serialized) struct SFUResendBudgetTests {
    /// What one measuring window saw.
    struct Window {
        var seconds: Double
        var published: UInt64
        var toA: UInt64
        var toB: Int
        var resentToB: UInt64
        var framesSent: [UInt64]
    }

    /// Runs `seconds` of the stream (`during` once per 100 ms) and returns its figures.
    func measure(_ seconds: Double, router: MediaRouter, publisher: TestPublisher, a: TestSubscriber, b: RawLegClient,
                 during: () -> Void) throws -> Window {
        let published = publisher.pipeline.videoCounters.snapshot().packets
        let toA = a.pipeline.videoCounters.snapshot().packets
        let toB = b.bytes(0)
        let resent = try #require(router.status(subscriberId: "b")).retransmittedBytes
        let framesBefore = publisher.sent.count
        let start = Date()
        while Date().timeIntervalSince(start) < seconds {
            during()
            Thread.sleep(forTimeInterval: 0.1)
        }
        let elapsed = Date().timeIntervalSince(start)
        let frames = Array(publisher.sent.dropFirst(framesBefore).dropLast(10))
        return Window(seconds: elapsed, published: publisher.pipeline.videoCounters.snapshot().packets - published,
                      toA: a.pipeline.videoCounters.snapshot().packets - toA, toB: b.bytes(0) - toB,
                      resentToB: try #require(router.status(subscriberId: "b")).retransmittedBytes - resent, framesSent: frames)
    }

    @Test func aSubscriberThatNacksEverythingGetsItsBudgetAndTheOtherOneNoticesNothing() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let a = try TestSubscriber(leg: try router.addAVSubscriber("a"))
        defer { a.stop() }
        let b = try RawLegClient(leg: try router.addAVSubscriber("b"))
        defer { b.stop() }
        #expect(b.sendReport(), "b's first report teaches its leg the address")
        let publisher = try TestPublisher(leg: publisherLeg)
        defer { publisher.stop() }
        _ = publisher.framesSent(0..<30)  // the first second: keyframe, estimates settle
        var reports = 0
        let quiet = try measure(3, router: router, publisher: publisher, a: a, b: b) {
            reports += 1
            if reports % 5 == 0 { b.sendReport() }  // a report every 500 ms, as a quiet client
        }
        b.nackEverything.store(true, ordering: .relaxed)
        let abusive = try measure(4, router: router, publisher: publisher, a: a, b: b) {}
        b.nackEverything.store(false, ordering: .relaxed)

        // b asked for everything, many times over.
        #expect(b.nacksSent.load(ordering: .relaxed) > 100, "NACK packets sent: \(b.nacksSent.load(ordering: .relaxed))")
        let status = try #require(router.status(subscriberId: "b"))
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(status.retransmissionsDuplicate > 0 && status.retransmissionsOverBudget > 0, "\(status)")
        #expect(counters.retransmissionsDuplicate >= status.retransmissionsDuplicate)
        #expect(counters.retransmissionsOverBudget >= status.retransmissionsOverBudget)

        // The budget: half of what the leg was forwarded, plus the bucket (one second of
        // that rate, at least 100 kbps), with a 25 % margin for the rate's smoothing.
        let forwarded = Double(abusive.toB) - Double(abusive.resentToB)
        let rate = forwarded / abusive.seconds
        let budget = 1.25 * (LegResendGuard.share * forwarded + max(LegResendGuard.share * rate, LegResendGuard.floorBitsPerSecond / 8))
        #expect(abusive.resentToB > 0, "some repairs still go out")
        #expect(Double(abusive.resentToB) <= budget,
                "resent \(abusive.resentToB) bytes for \(Int(forwarded)) forwarded in \(abusive.seconds) s; budget \(Int(budget))")

        // a's share of what the publisher sent, and its pictures, are as without b's NACKs.
        let quietShare = Double(quiet.toA) / Double(max(quiet.published, 1))
        let abusiveShare = Double(abusive.toA) / Double(max(abusive.published, 1))
        #expect(quiet.published > 50 && abusive.published > 50, "\(quiet.published), \(abusive.published)")
        #expect(abusiveShare >= quietShare - 0.1, "a got \(abusiveShare) of the packets under abuse, \(quietShare) before")
        waitForDelivery(of: abusive.framesSent, to: a)
        #expect(a.decoded.share(of: abusive.framesSent) >= 0.9, "a decoded \(a.decoded.share(of: abusive.framesSent))")

        // a's receiver reports answer the sender reports forwarded to it: the router knows
        // a's round trip (loopback: well under the 100 ms default), so a's dedup follows it.
        let roundTrip = try #require(router.status(subscriberId: "a")).roundTripNanoseconds
        #expect(roundTrip > 0 && roundTrip < 100_000_000, "a's round trip: \(roundTrip) ns")
        #expect(try #require(router.status(subscriberId: "b")).roundTripNanoseconds == 0, "b sent no report blocks")

        // /metrics shows the refusals by reason.
        var metrics = RouterMetrics()
        metrics.media = router.totals
        let text = PrometheusText.render(metrics)
        #expect(text.contains("otkit_retransmissions_refused_total{reason=\"budget\"} \(metrics.media.retransmissionsOverBudget)"))
        #expect(text.contains("otkit_retransmissions_refused_total{reason=\"duplicate\"} \(metrics.media.retransmissionsDuplicate)"))
        #expect(text.contains("otkit_retransmissions_total \(metrics.media.retransmissions)"))
        print("resend budget: quiet a share \(quietShare), abusive a share \(abusiveShare); b forwarded \(Int(forwarded)) B "
              + "in \(abusive.seconds) s, resent \(abusive.resentToB) B (budget \(Int(budget))), refused \(status.retransmissionsOverBudget) "
              + "over budget, \(status.retransmissionsDuplicate) duplicates, \(b.nacksSent.load(ordering: .relaxed)) NACK packets; "
              + "a's round trip \(roundTrip) ns")
        router.removePublisher(streamId: "s1")
    }
}
