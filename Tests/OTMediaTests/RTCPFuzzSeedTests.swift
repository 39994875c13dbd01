import Foundation
import Testing
@testable import OTMedia

/// Writes the RTCP fuzz target's seed corpus (`<dir>/RTCP/`) when `OTKIT_FUZZ_SEED_DIR`
/// is set: the compounds OTKit's pipelines send (SR+SDES, RR+SDES+NACK+PLI) and the
/// feedback browsers send (RR+REMB, TWCC, FIR), each concatenated the way they travel.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["OTKIT_FUZZ_SEED_DIR"] != nil))
struct RTCPFuzzSeedTests {
    @Test func writeRTCPSeeds() throws {
        let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["OTKIT_FUZZ_SEED_DIR"]!)
        let directory = root.appendingPathComponent("RTCP")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cname = Array("otkit-publisher".utf8)
        var lost: [UInt16] = [65534, 65535, 0, 3, 17, 400]
        let blocks = [ReportBlock(ssrc: 0x1122_3344, fractionLost: 12, cumulativeLost: 40, extendedHighestSequence: 70_000,
                                  jitter: 300, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)]
        let ssrcs: [UInt32] = [0x1122_3344, 0x5566_7788]
        let entries = [FullIntraRequest.Entry(ssrc: 0x1122_3344, sequenceNumber: 7)]
        var seeds: [[UInt8]] = []
        try cname.withUnsafeBytes { name in
            try blocks.withUnsafeBufferPointer { blockList in
                let reports = RTCPList(blockList)
                seeds.append(try RTCPTestSupport.write(SenderReport(ssrc: 0x1122_3344, ntpTimestamp: NTPTimestamp(unixNanoseconds: 1_700_000_000_000_000_000),
                                                                    rtpTimestamp: 123_456, packetCount: 900, octetCount: 1_000_000, reportBlocks: reports))
                             + RTCPTestSupport.write(SourceDescription(ssrc: 0x1122_3344, cname: name)))
                var pairs = [NACKPair](repeating: NACKPair(packetID: 0, lostBitmask: 0), count: 8)
                let built = lost.withUnsafeMutableBufferPointer { l in
                    pairs.withUnsafeMutableBufferPointer { NACKPair.build(lost: UnsafeBufferPointer(l), into: $0) }
                }
                try pairs.withUnsafeBufferPointer { p in
                    let nack = GenericNACK(senderSSRC: 9, mediaSSRC: 0x1122_3344, pairs: RTCPList(UnsafeBufferPointer(rebasing: p[0..<built.pairs])))
                    seeds.append(try RTCPTestSupport.write(ReceiverReport(ssrc: 9, reportBlocks: reports))
                                 + RTCPTestSupport.write(SourceDescription(ssrc: 9, cname: name))
                                 + RTCPTestSupport.write(nack)
                                 + RTCPTestSupport.write(PictureLossIndication(senderSSRC: 9, mediaSSRC: 0x1122_3344)))
                }
                try ssrcs.withUnsafeBufferPointer { s in
                    seeds.append(try RTCPTestSupport.write(ReceiverReport(ssrc: 9))
                                 + RTCPTestSupport.write(ReceiverEstimatedMaxBitrate(senderSSRC: 9, bitrate: 1_500_000, ssrcs: RTCPList(s))))
                }
                try entries.withUnsafeBufferPointer { e in
                    seeds.append(try RTCPTestSupport.write(FullIntraRequest(senderSSRC: 9, mediaSSRC: 0, entries: RTCPList(e))))
                }
            }
        }
        var received: [TWCCReceivedPacket] = []
        for n in 0..<40 {
            let sequence = UInt16(100 + n + (n > 20 ? 3 : 0))  // three lost after the 21st
            let arrival = UInt64(1_000_000_000) + UInt64(n) * 2_500_000
            received.append(TWCCReceivedPacket(sequenceNumber: sequence, arrivalNanoseconds: arrival))
        }
        try received.withUnsafeBufferPointer { records in
            let builder = try TransportWideCCBuilder(senderSSRC: 9, mediaSSRC: 0x1122_3344, feedbackPacketCount: 1, records: records)
            seeds.append(try RTCPTestSupport.write(builder))
        }
        for (i, seed) in seeds.enumerated() {
            try Data(seed).write(to: directory.appendingPathComponent(String(format: "seed-%03d", i)))
        }
        // Every seed is a compound OTKit's own parser accepts, with no unknown or malformed
        // packet inside: a seed the fuzzer starts from must reach the deep parsing code.
        for seed in seeds {
            try seed.withUnsafeBytes { bytes in
                var packets = try RTCPCompoundPacket(validating: bytes).makeIterator()
                while packets.next() != nil {}
                #expect(packets.malformedCount == 0 && packets.unknownCount == 0)
            }
        }
    }
}
