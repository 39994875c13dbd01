import Foundation
import OTMedia
@testable import OTRouter
import Testing

/// A leg takes its client's first 8 authenticated sender SSRCs and drops datagrams under
/// any other before SRTP sees them: libsrtp keeps a stream per authenticated SSRC, so a
/// client with its own keys could otherwise grow that list (and its lookups) without end.
@Suite struct LegSSRCGateTests {
    struct Step {
        let ssrc: UInt32
        let authenticates: Bool
        let verdict: LegSSRCGate.Verdict
    }

    static let cases: [(name: String, steps: [Step], known: Int)] = [
        ("a known SSRC passes", [Step(ssrc: 1, authenticates: true, verdict: .trial), Step(ssrc: 1, authenticates: true, verdict: .known)], 1),
        ("a failed trial admits nothing", [Step(ssrc: 2, authenticates: false, verdict: .trial), Step(ssrc: 2, authenticates: true, verdict: .trial)], 1),
        ("the ninth SSRC is refused, the first still known",
         (1...8).map { Step(ssrc: UInt32($0), authenticates: true, verdict: .trial) }
            + [Step(ssrc: 9, authenticates: true, verdict: .refused), Step(ssrc: 1, authenticates: true, verdict: .known)], 8),
        ("datagrams that never authenticate cannot fill it",
         (100...130).map { Step(ssrc: UInt32($0), authenticates: false, verdict: .trial) }
            + [Step(ssrc: 7, authenticates: true, verdict: .trial)], 1),
        ("SSRC 0 is an SSRC like any other", [Step(ssrc: 0, authenticates: true, verdict: .trial), Step(ssrc: 0, authenticates: true, verdict: .known)], 1),
    ]

    @Test(arguments: cases.indices)
    func verdicts(index: Int) {
        let (name, steps, known) = Self.cases[index]
        var gate = LegSSRCGate()
        for (number, step) in steps.enumerated() {
            let verdict = gate.check(step.ssrc)
            #expect(verdict == step.verdict, "\(name), step \(number): \(verdict)")
            if verdict == .trial, step.authenticates { gate.admit(step.ssrc) }
        }
        #expect(gate.count == known, "\(name)")
    }

    @Test func senderSSRCIsReadWhereRTPAndRTCPKeepIt() {
        let bytes: [UInt8] = [0x80, 0xC9, 0, 1, 0xAA, 0xBB, 0xCC, 0xDD, 0x11, 0x22, 0x33, 0x44]
        bytes.withUnsafeBytes { raw in
            #expect(SenderSSRC.read(raw, isRTCP: true) == 0xAABB_CCDD)
            #expect(SenderSSRC.read(raw, isRTCP: false) == 0x1122_3344)
            #expect(SenderSSRC.read(UnsafeRawBufferPointer(rebasing: raw[0..<11]), isRTCP: false) == nil)
            #expect(SenderSSRC.read(UnsafeRawBufferPointer(rebasing: raw[0..<7]), isRTCP: true) == nil)
        }
    }

    /// On a real subscriber leg: authenticated reports under 20 sender SSRCs; the leg reads
    /// those of the first 8, drops the other 12 unread (counted), and still reads the first.
    @Test func aSubscriberLegReadsOnlyItsFirstEightSenderSSRCs() throws {
        let router = try MediaRouter()
        _ = try router.addAVPublisher()
        let client = try RawLegClient(leg: try router.addAVSubscriber("b"))
        defer { client.stop() }
        func counters() -> ForwardingCounters { router.counters(streamId: "s1") ?? ForwardingCounters() }
        for ssrc in UInt32(0x1000)..<0x1014 {
            #expect(client.sendReport(as: ssrc))
            Thread.sleep(forTimeInterval: 0.01)
        }
        let deadline = Date(timeIntervalSinceNow: 10)
        while counters().receiverReports + counters().unknownSSRCRefused < 20, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(counters().receiverReports == 8)
        #expect(counters().unknownSSRCRefused == 12)
        #expect(client.sendReport(as: 0x1000))
        while counters().receiverReports < 9, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(counters().receiverReports == 9)
        #expect(counters().unknownSSRCRefused == 12)
    }
}
