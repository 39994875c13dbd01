import Testing
@testable import OTMedia

@Suite struct RTCPCompoundTests {
    /// What a browser's sender emits every second or so: SR, then SDES with its CNAME.
    static let senderCompound = RTCPReportTests.senderReport + RTCPDescriptionTests.cnameSDES
    /// What a browser's receiver emits: RR, then REMB (without transport-cc).
    static let receiverCompound = RTCPReportTests.receiverReport + RTCPFeedbackTests.remb
    /// An APP packet (PT 204, name "OTKT", 4 bytes of data): valid RTCP that OTKit skips.
    static let application: [UInt8] = [0x80, 0xCC, 0x00, 0x03, 0, 0, 0, 1, 0x4F, 0x54, 0x4B, 0x54, 1, 2, 3, 4]

    enum Kind: Equatable { case sr, rr, sdes, bye, nack, twcc, pli, fir, remb, unknown, malformed }

    static func kinds(_ bytes: [UInt8]) throws -> (kinds: [Kind], unknown: Int, malformed: Int, reduced: Bool) {
        try withRaw(bytes) { view in
            let compound = try RTCPCompoundPacket(validating: view)
            var iterator = compound.makeIterator()
            var kinds: [Kind] = []
            while let packet = iterator.next() {
                switch packet {
                case .senderReport: kinds.append(.sr)
                case .receiverReport: kinds.append(.rr)
                case .sourceDescription: kinds.append(.sdes)
                case .goodbye: kinds.append(.bye)
                case .genericNACK: kinds.append(.nack)
                case .transportWideFeedback: kinds.append(.twcc)
                case .pictureLossIndication: kinds.append(.pli)
                case .fullIntraRequest: kinds.append(.fir)
                case .receiverEstimatedMaxBitrate: kinds.append(.remb)
                case .unknown: kinds.append(.unknown)
                case .malformed: kinds.append(.malformed)
                }
            }
            #expect(kinds.count == compound.packetCount)
            #expect(Array(compound.rawPackets).count == compound.packetCount)
            return (kinds, iterator.unknownCount, iterator.malformedCount, compound.isReducedSize)
        }
    }

    @Test func senderReportWithCNAME() throws {
        let result = try Self.kinds(Self.senderCompound)
        #expect(result.kinds == [.sr, .sdes])
        #expect(!result.reduced)
        try withRaw(Self.senderCompound) { view in
            let packets = Array(try RTCPCompoundPacket(validating: view))
            guard case let .senderReport(sr) = packets[0], case let .sourceDescription(sdes) = packets[1] else {
                Issue.record("wrong packet kinds")
                return
            }
            #expect(sr.ssrc == 0x902F_9E2E)
            #expect(sdes.firstCNAME.map(Array.init) == Array("otkit-user@host1".utf8))
        }
    }

    @Test func receiverReportWithREMB() throws {
        let result = try Self.kinds(Self.receiverCompound)
        #expect(result.kinds == [.rr, .remb])
        try withRaw(Self.receiverCompound) { view in
            for packet in try RTCPCompoundPacket(validating: view) {
                if case let .receiverEstimatedMaxBitrate(remb) = packet { #expect(remb.bitrate == 999_997_440) }
            }
        }
    }

    /// Browsers send transport-cc feedback on its own (reduced-size RTCP, RFC 5506).
    @Test func transportFeedbackAlone() throws {
        let result = try Self.kinds(RTCPTransportFeedbackTests.feedback)
        #expect(result.kinds == [.twcc])
        #expect(result.reduced)
    }

    @Test func everyFeedbackTypeAndUnknownsInOneCompound() throws {
        let bytes = RTCPReportTests.receiverReport + RTCPDescriptionTests.cnameSDES + Self.application
            + RTCPFeedbackTests.nack + RTCPFeedbackTests.pli + RTCPFeedbackTests.fir + RTCPFeedbackTests.remb
            + RTCPTransportFeedbackTests.feedback + RTCPDescriptionTests.goodbye
        let result = try Self.kinds(bytes)
        #expect(result.kinds == [.rr, .sdes, .unknown, .nack, .pli, .fir, .remb, .twcc, .bye])
        #expect(result.unknown == 1)
        #expect(result.malformed == 0)
    }

    /// PSFB FMT 15 that is not REMB, RTPFB FMT 3, and XR (207) are skipped as unknown; a
    /// known type with bad contents is reported as malformed, and the rest still decodes.
    @Test func unknownAndMalformedAreCountedNotFatal() throws {
        let otherAFB: [UInt8] = [0x8F, 0xCE, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 0, 0x58, 0x58, 0x58, 0x58]
        let rtpfb3: [UInt8] = [0x83, 0xCD, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2]
        let xr: [UInt8] = [0x80, 0xCF, 0x00, 0x01, 0, 0, 0, 1]
        let badSDES: [UInt8] = [0x81, 0xCA, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x09, 0x61, 0x62]
        let bytes = RTCPReportTests.receiverReport + otherAFB + rtpfb3 + xr + badSDES + RTCPFeedbackTests.pli
        let result = try Self.kinds(bytes)
        #expect(result.kinds == [.rr, .unknown, .unknown, .unknown, .malformed, .pli])
        #expect(result.unknown == 3)
        #expect(result.malformed == 1)
    }

    @Test func paddingOnTheLastPacketIsAllowed() throws {
        // RR with no blocks, padded by 4 bytes (P bit, count 4).
        let padded: [UInt8] = [0xA0, 0xC9, 0x00, 0x02, 0, 0, 0, 7, 0, 0, 0, 4]
        let result = try Self.kinds(RTCPFeedbackTests.pli + padded)
        #expect(result.kinds == [.pli, .rr])
    }

    @Test(arguments: [
        ([UInt8](), RTCPError.malformed(.emptyCompound)),
        ([0xA0, 0xC9, 0x00, 0x02, 0, 0, 0, 7, 0, 0, 0, 4] + RTCPFeedbackTests.pli, .invalidPadding),
        (RTCPFeedbackTests.pli + [0x81, 0xCE], .truncated(needed: 4, available: 2)),
        (RTCPFeedbackTests.pli + [0x81, 0xCE, 0x00, 0x02, 0, 0, 0, 1], .invalidLength(declaredBytes: 12, availableBytes: 8)),
        (RTCPFeedbackTests.pli + [0x01, 0xCE, 0x00, 0x00], .unsupportedVersion(0)),
    ])
    func invalidFramingDropsTheDatagram(bytes: [UInt8], expected: RTCPError) {
        let error = withRaw(bytes) { view in RTCPTestSupport.error { _ = try RTCPCompoundPacket(validating: view) } }
        #expect(error == expected)
    }

    /// The writer's output, for SR + SDES + NACK + PLI + BYE, is the concatenation of the parts.
    @Test func writerKeepsRFC3550Order() throws {
        let cname = Array("otkit-user@host1".utf8)
        let pairs = [NACKPair(packetID: 65534, lostBitmask: 0x8001), NACKPair(packetID: 16)]
        let leaving: [UInt32] = [0x902F_9E2E, 0xBC5E_9A40]
        let reason = Array("hangs".utf8)
        var buffer = [UInt8](repeating: 0, count: 1500)
        try withRaw(RTCPReportTests.senderReport) { srBytes in
            let sr = try SenderReport(parsing: srBytes)
            try cname.withUnsafeBytes { name in
                try pairs.withUnsafeBufferPointer { pairList in
                    try leaving.withUnsafeBufferPointer { ssrcs in
                        try reason.withUnsafeBytes { why in
                            try buffer.withUnsafeMutableBytes { out in
                                var writer = RTCPCompoundWriter(buffer: out)
                                try writer.append(sr)
                                try writer.append(SourceDescription(ssrc: 0x1234_5678, cname: name))
                                try writer.append(GenericNACK(senderSSRC: 1, mediaSSRC: 0x902F_9E2E, pairs: RTCPList(pairList)))
                                try writer.append(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x902F_9E2E))
                                try writer.append(Goodbye(sources: RTCPList(ssrcs), reason: why))
                                let datagram = Array(try writer.finish())
                                #expect(datagram == Self.senderCompound + RTCPFeedbackTests.nack + RTCPFeedbackTests.pli
                                    + RTCPDescriptionTests.goodbye)
                                #expect(try Self.kinds(datagram).kinds == [.sr, .sdes, .nack, .pli, .bye])
                            }
                        }
                    }
                }
            }
        }
    }

    @Test func writerRefusesOutOfOrderPackets() throws {
        let cname = Array("c".utf8)
        var buffer = [UInt8](repeating: 0, count: 256)
        try cname.withUnsafeBytes { name in
            try buffer.withUnsafeMutableBytes { out in
                let pli = PictureLossIndication(senderSSRC: 1, mediaSSRC: 2)
                let sdes = SourceDescription(ssrc: 1, cname: name)
                let rr = ReceiverReport(ssrc: 1)
                let sr = SenderReport(ssrc: 1, ntpTimestamp: NTPTimestamp(rawValue: 0), rtpTimestamp: 0, packetCount: 0, octetCount: 0)

                var full = RTCPCompoundWriter(buffer: out)
                #expect(RTCPTestSupport.error { try full.append(pli) } == .malformed(.compoundOrder))  // report first
                #expect(RTCPTestSupport.error { try full.append(sdes) } == .malformed(.compoundOrder))
                #expect(full.count == 0)
                try full.append(rr)
                try full.append(rr)  // more RRs may follow the first report
                #expect(RTCPTestSupport.error { try full.append(sr) } == .malformed(.compoundOrder))
                #expect(RTCPTestSupport.error { _ = try full.finish() } == .malformed(.compoundWithoutCNAME))
                try full.append(sdes)
                try full.append(pli)
                #expect(RTCPTestSupport.error { try full.append(sdes) } == .malformed(.compoundOrder))
                try full.append(Goodbye(sources: .empty))
                #expect(RTCPTestSupport.error { try full.append(pli) } == .malformed(.compoundOrder))  // BYE is last
                let datagram = Array(try full.finish())
                #expect(try Self.kinds(datagram).kinds == [.rr, .rr, .sdes, .pli, .bye])

                var reduced = RTCPCompoundWriter(buffer: out, reducedSize: true)
                #expect(RTCPTestSupport.error { _ = try reduced.finish() } == .malformed(.emptyCompound))
                try reduced.append(pli)
                let lone = Array(try reduced.finish())
                #expect(lone == [0x81, 0xCE, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2])
                #expect(try Self.kinds(lone).reduced)
            }
        }
    }

    @Test func writerRefusesWhatDoesNotFit() throws {
        var buffer = [UInt8](repeating: 0, count: 20)
        try buffer.withUnsafeMutableBytes { out in
            var writer = RTCPCompoundWriter(buffer: out, reducedSize: true)
            try writer.append(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2))
            let error = RTCPTestSupport.error { try writer.append(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2)) }
            #expect(error == .bufferTooSmall(needed: 12, available: 8))
            #expect(writer.count == 12)
        }
    }

    /// TWCC built from records goes through the writer like any other packet.
    @Test func builtTransportFeedbackInAReducedCompound() throws {
        let records = (0 ..< 50).map { TWCCReceivedPacket(sequenceNumber: UInt16($0), arrivalNanoseconds: 2_000_000_000 + UInt64($0) * 3_000_000) }
        var buffer = [UInt8](repeating: 0, count: 1200)
        try records.withUnsafeBufferPointer { input in
            try buffer.withUnsafeMutableBytes { out in
                var writer = RTCPCompoundWriter(buffer: out, reducedSize: true)
                try writer.append(try TransportWideCCBuilder(senderSSRC: 1, mediaSSRC: 2, feedbackPacketCount: 0, records: input))
                try writer.append(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 30_000, ssrcs: .empty))
                let datagram = Array(try writer.finish())
                #expect(try Self.kinds(datagram).kinds == [.twcc, .remb])
            }
        }
    }
}
