import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// What a browser publishing rid simulcast needs back from the router for its congestion
/// control to trust the path (issue 16 acceptance e): every packet that reached the router
/// is reported RECEIVED in the transport-wide feedback, whatever the forwarding path did
/// with it (dropped for an unknown payload type or an SSRC not learned yet, a padding probe
/// on an RTX stream, an RTX repair), and the receiver reports carry a block for EACH layer
/// under the browser's own SSRC, answering that layer's sender report (LSR/DLSR), so the
/// browser sees remote-inbound-rtp and a round trip per layer. The offer is the real
/// Chromium 3-rid offer renumbered (VP8 100, RTX 101, transport-wide cc id 5, rid id 10,
/// repaired rid id 11), so no browser id happens to equal the router's.
@Suite(.serialized) struct BrowserSimulcastFeedbackTests {
    typealias Rig = BrowserSDPSignalingTests.Rig

    /// Browser layer SSRCs (never in the SDP), their RTX SSRCs, and one the router never learns.
    static let layers: [(ssrc: UInt32, rtx: UInt32, rid: String)] = [
        (0xB200_0001, 0xB200_0011, "q"), (0xB200_0002, 0xB200_0012, "h"), (0xB200_0003, 0xB200_0013, "f"),
    ]
    static let stranger: UInt32 = 0xB200_00FF
    /// The audio SSRC the Chromium simulcast offer announces.
    static let audio: UInt32 = 2_189_941_903

    /// A published renumbered simulcast offer and the browser-like peer's connected client.
    static func publish(_ rig: Rig) throws -> EdgeClient {
        let web = try rig.join()
        let browser = try BrowserPeer()
        let offer = browser.identify(BrowserPeer.renumbered(BrowserSDPFixture.chromeSimulcast))
        guard case .published(let published)? = rig.publish(web, offer: offer, requestId: 2), let answer = published.sdpAnswer else {
            throw BrowserSDPSignalingTests.RigFailure(description: "simulcast offer refused: \(String(describing: web.reply(to: 2)))")
        }
        return try browser.connect(to: answer)
    }

    /// `payload` marked as padding only (P bit, its last byte the padding length).
    static func paddingOnly(_ packet: [UInt8], count: Int = 200) -> [UInt8] {
        var bytes = packet + [UInt8](repeating: 0, count: count - 1) + [UInt8(count)]
        bytes[0] |= 0x20
        return bytes
    }

    /// The statuses of the transport-wide feedback packets in an RTCP compound, and the
    /// media SSRC each names.
    static func feedbackStatuses(_ compound: [UInt8]) -> (statuses: [TWCCPacketStatus], media: [UInt32]) {
        var statuses: [TWCCPacketStatus] = []
        var media: [UInt32] = []
        var offset = 0
        while offset + 8 <= compound.count {
            let end = min(offset + 4 * (Int(edgeBE16(compound, offset + 2)) + 1), compound.count)
            if compound[offset + 1] == 205, compound[offset] & 0x1F == 15 {
                compound[offset..<end].withUnsafeBytes { raw in
                    if let feedback = try? TransportWideCCFeedback(parsing: raw) {
                        statuses += Array(feedback.packets)
                        media.append(feedback.mediaSSRC)
                    }
                }
            }
            offset = end
        }
        return (statuses, media)
    }

    /// Report blocks (SSRC, cumulative lost, LSR) of the receiver reports in an RTCP compound.
    static func reportBlocks(_ compound: [UInt8]) -> [(ssrc: UInt32, cumulativeLost: Int32, lastSenderReport: UInt32)] {
        var blocks: [(UInt32, Int32, UInt32)] = []
        var offset = 0
        while offset + 8 <= compound.count {
            let count = Int(compound[offset] & 0x1F)
            let end = min(offset + 4 * (Int(edgeBE16(compound, offset + 2)) + 1), compound.count)
            if compound[offset + 1] == 201 {
                var block = offset + 8
                for _ in 0..<count where block + 24 <= end {
                    let lost = Int32(bitPattern: edgeBE32(compound, block + 4) << 8) >> 8  // 24-bit signed
                    blocks.append((edgeBE32(compound, block), lost, edgeBE32(compound, block + 16)))
                    block += 24
                }
            }
            offset = end
        }
        return blocks
    }

    /// Every packet of a simulcast arrival sequence, whatever the forwarding path does with
    /// it, is reported received; none is reported lost.
    @Test func everyArrivalIsReportedReceivedWhateverForwardingDidWithIt() throws {
        let rig = try Rig()
        defer { rig.service.stop() }
        let publisher = try Self.publish(rig)
        var transport: UInt16 = 100
        var sent: [UInt16: String] = [:]
        var received = Set<UInt16>(), lost = Set<UInt16>()
        var named = Set<UInt32>()  // the media SSRCs the feedbacks name
        func send(_ what: String, sequence: UInt16, ssrc: UInt32, payloadType: UInt8, elements: [(UInt8, [UInt8])],
                  payload: [UInt8], padding: Bool = false) throws {
            transport &+= 1
            let packet = browserRTP(sequence: sequence, ssrc: ssrc, payloadType: payloadType,
                                    elements: elements + [(5, [UInt8(transport >> 8), UInt8(transport & 0xFF)])], payload: payload)
            try publisher.sendRTP(padding ? Self.paddingOnly(packet) : packet)
            sent[transport] = what
        }
        func drain(_ timeout: Double) throws {
            while let (packet, isRTCP) = try publisher.receiveMedia(timeout: timeout) {
                guard isRTCP else { continue }
                let feedback = Self.feedbackStatuses(packet)
                for status in feedback.statuses {
                    if status.isReceived { received.insert(status.sequenceNumber) } else { lost.insert(status.sequenceNumber) }
                }
                named.formUnion(feedback.media)
            }
        }
        for round in 0..<40 {
            let sequence = UInt16(round + 1)
            for (index, layer) in Self.layers.prefix(2).enumerated() {
                let rid = Array(layer.rid.utf8)
                // A layer's media, then its RTX: a repair and a padding probe (repaired rid).
                try send("\(layer.rid) media", sequence: sequence, ssrc: layer.ssrc, payloadType: 100, elements: [(10, rid), (4, [0x31])],
                         payload: BrowserSimulcastTests.keyframe(320 << index, 180 << index, layer: UInt8(index)))
                try send("\(layer.rid) rtx repair", sequence: 2 * sequence, ssrc: layer.rtx, payloadType: 101, elements: [(11, rid)],
                         payload: [UInt8(sequence >> 8), UInt8(sequence & 0xFF)] + BrowserSimulcastTests.keyframe(320, 180, layer: 0))
                try send("\(layer.rid) rtx probe", sequence: 2 * sequence + 1, ssrc: layer.rtx, payloadType: 101, elements: [(11, rid)],
                         payload: [], padding: true)
            }
            // What the forwarding path drops or never learns: still arrivals.
            try send("unnegotiated payload type", sequence: sequence, ssrc: Self.stranger &+ 2, payloadType: 127, elements: [],
                     payload: [1, 2, 3, 4])
            try send("unlearned SSRC without rid", sequence: sequence, ssrc: Self.stranger, payloadType: 100, elements: [],
                     payload: BrowserSimulcastTests.keyframe(320, 180, layer: 9))
            try send("padding probe of an unlearned RTX SSRC", sequence: sequence, ssrc: Self.stranger &+ 1, payloadType: 101,
                     elements: [], payload: [], padding: true)
            try drain(0.01)
        }
        let last = transport
        let deadline = Date().addingTimeInterval(3)
        while !received.contains(last), Date() < deadline { try drain(0.05) }
        let missing = sent.filter { !received.contains($0.key) }
        let reportedLost = sent.filter { lost.contains($0.key) }
        #expect(missing.isEmpty, "\(missing.count) of \(sent.count) arrivals never reported received: \(Set(missing.values).sorted())")
        #expect(reportedLost.isEmpty, "\(reportedLost.count) arrivals reported lost: \(Set(reportedLost.values).sorted())")
        // Chrome takes a feedback only when its media SSRC is one Chrome sends.
        let browserSSRCs = Set(Self.layers.map(\.ssrc) + [Self.audio])
        #expect(!named.isEmpty && named.isSubset(of: browserSSRCs),
                "the feedbacks name the browser's SSRCs: \(named.map { String($0, radix: 16) })")
    }

    /// Each layer the browser sends gets a report block under the browser's SSRC, and a
    /// layer's block answers its sender report (LSR = the SR's middle 32 NTP bits). RTX
    /// resends of packets that already arrived (Chrome probes with them) are not counted
    /// twice: no layer's cumulative loss goes negative.
    @Test func receiverReportsNameEveryLayerAndAnswerItsSenderReport() throws {
        let rig = try Rig()
        defer { rig.service.stop() }
        let publisher = try Self.publish(rig)
        var named: [UInt32: Set<UInt32>] = [:]  // browser SSRC → LSRs its blocks carried
        var leastLost: [UInt32: Int32] = [:]
        let start = Date()
        var sequence: UInt16 = 1
        while Date().timeIntervalSince(start) < 3.5 {
            for (index, layer) in Self.layers.enumerated() {
                try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: layer.ssrc, payloadType: 100,
                                                 elements: [(10, Array(layer.rid.utf8)), (4, [0x31])],
                                                 payload: BrowserSimulcastTests.keyframe(320 << index, 180 << index, layer: UInt8(index))))
                if sequence > 5 {
                    // An RTX resend of a packet that arrived 5 packets ago.
                    let old = sequence - 5
                    try publisher.sendRTP(browserRTP(sequence: sequence, ssrc: layer.rtx, payloadType: 101,
                                                     elements: [(11, Array(layer.rid.utf8))],
                                                     payload: [UInt8(old >> 8), UInt8(old & 0xFF)]
                                                         + BrowserSimulcastTests.keyframe(320 << index, 180 << index, layer: UInt8(index))))
                }
                if sequence % 25 == 0 {
                    // A sender report whose middle NTP bits name the layer: 0x00AB_CD0i.
                    let ntpHigh: UInt32 = 0x0000_00AB, ntpLow = UInt32(0xCD00_0000) | UInt32(index) << 16
                    var report: [UInt8] = [0x80, 200, 0, 6]
                    for word in [layer.ssrc, ntpHigh, ntpLow, UInt32(sequence) * 3000, UInt32(sequence), UInt32(sequence) * 100] {
                        report += [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
                    }
                    try publisher.sendRTCP(report)
                }
            }
            sequence &+= 1
            while let (packet, isRTCP) = try publisher.receiveMedia(timeout: 0.02) {
                guard isRTCP else { continue }
                for block in Self.reportBlocks(packet) {
                    named[block.ssrc, default: []].insert(block.lastSenderReport)
                    leastLost[block.ssrc] = min(leastLost[block.ssrc] ?? .max, block.cumulativeLost)
                }
            }
        }
        for (index, layer) in Self.layers.enumerated() {
            let reports = named[layer.ssrc] ?? []
            #expect(!reports.isEmpty, "a receiver report block names layer \(layer.rid): \(named.keys.map { String($0, radix: 16) })")
            #expect(reports.contains(0x00AB_CD00 | UInt32(index)), "layer \(layer.rid)'s block answers its SR: \(reports.map { String($0, radix: 16) })")
            #expect((leastLost[layer.ssrc] ?? -1) >= 0, "layer \(layer.rid)'s cumulative loss: \(String(describing: leastLost[layer.ssrc]))")
        }
    }
}
