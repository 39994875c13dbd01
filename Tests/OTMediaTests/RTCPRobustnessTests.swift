import Testing
@testable import OTMedia

/// Garbage in never traps: every truncation of every example, bit flips, and 100,000
/// random datagrams go through every parser and the fuzz target's body.
@Suite struct RTCPRobustnessTests {
    static let examples: [(String, [UInt8])] = [
        ("SR", RTCPReportTests.senderReport), ("RR", RTCPReportTests.receiverReport),
        ("SDES", RTCPDescriptionTests.cnameSDES), ("SDES two chunks", RTCPDescriptionTests.twoChunks),
        ("BYE", RTCPDescriptionTests.goodbye), ("NACK", RTCPFeedbackTests.nack), ("PLI", RTCPFeedbackTests.pli),
        ("FIR", RTCPFeedbackTests.fir), ("REMB", RTCPFeedbackTests.remb), ("TWCC", RTCPTransportFeedbackTests.feedback),
        ("SR+SDES", RTCPCompoundTests.senderCompound), ("RR+REMB", RTCPCompoundTests.receiverCompound),
    ]

    /// Runs every parser over `bytes`; returns how many accepted it.
    @discardableResult
    static func parseWithEverything(_ bytes: UnsafeRawBufferPointer) -> Int {
        var accepted = 0
        if (try? SenderReport(parsing: bytes)) != nil { accepted += 1 }
        if (try? ReceiverReport(parsing: bytes)) != nil { accepted += 1 }
        if let sdes = try? SourceDescription(parsing: bytes) {
            accepted += 1
            for chunk in sdes.chunks { for item in chunk { _ = item.value.count } }
        }
        if (try? Goodbye(parsing: bytes)) != nil { accepted += 1 }
        if let nack = try? GenericNACK(parsing: bytes) {
            accepted += 1
            for number in nack.lostSequenceNumbers { _ = number }
        }
        if (try? PictureLossIndication(parsing: bytes)) != nil { accepted += 1 }
        if (try? FullIntraRequest(parsing: bytes)) != nil { accepted += 1 }
        if (try? ReceiverEstimatedMaxBitrate(parsing: bytes)) != nil { accepted += 1 }
        if let twcc = try? TransportWideCCFeedback(parsing: bytes) {
            accepted += 1
            #expect(twcc.packets.reduce(0) { count, _ in count + 1 } == Int(twcc.packetStatusCount))
        }
        _ = try? ReportBlock(parsing: bytes)  // any 24 bytes are a block: not counted
        _ = RTCPPacket(parsing: bytes)
        _ = PacketClassifier.classify(bytes)
        RTCPFuzzing.parseCompound(bytes)
        return accepted
    }

    @Test(arguments: examples.map(\.0))
    func everyTruncationIsRejected(name: String) throws {
        let bytes = try #require(Self.examples.first { $0.0 == name }?.1)
        #expect(withRaw(bytes) { RTCPFuzzing.parseCompound($0) } > 0)
        // A compound's prefix may hold its whole first packet, which the single-packet
        // parsers rightly accept; the compound itself must be refused.
        let isCompound = name.contains("+")
        var boundaries: Set<Int> = []  // prefixes that end exactly after a whole packet are valid compounds
        var offset = 0
        while offset < bytes.count {
            offset += (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]) + 1) * 4
            boundaries.insert(offset)
        }
        for length in 0 ..< bytes.count {
            let prefix = Array(bytes[0 ..< length])
            withRaw(prefix) { view in
                let accepted = Self.parseWithEverything(view)
                if !isCompound { #expect(accepted == 0, "prefix of \(length) bytes accepted") }
                #expect(((try? RTCPCompoundPacket(validating: view)) == nil) != boundaries.contains(length))
            }
        }
    }

    /// Shrinking the length field along with the bytes keeps the framing valid but cuts the
    /// body: parsers must refuse or accept without trapping, and never read past the end.
    @Test(arguments: examples.map(\.0))
    func everyShortenedBodyIsSafe(name: String) throws {
        let bytes = try #require(Self.examples.first { $0.0 == name }?.1)
        let words = (Int(bytes[2]) << 8 | Int(bytes[3])) + 1
        var accepted = 0
        for keep in 1 ... words {
            var packet = Array(bytes[0 ..< keep * 4])
            packet[2] = UInt8((keep - 1) >> 8)
            packet[3] = UInt8((keep - 1) & 0xFF)
            accepted += withRaw(packet) { Self.parseWithEverything($0) }
        }
        #expect(accepted >= 1)  // at least the full-length packet parses
    }

    @Test(arguments: examples.map(\.0))
    func everyBitFlipIsSafe(name: String) throws {
        let bytes = try #require(Self.examples.first { $0.0 == name }?.1)
        var survived = 0
        for index in 0 ..< bytes.count {
            for bit in 0 ..< 8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                survived += withRaw(flipped) { RTCPFuzzing.parseCompound($0) }
            }
        }
        #expect(survived > 0)  // most flips in payload fields still decode and round-trip
    }

    /// 100,000 random datagrams, half of them with a plausible RTCP header (so the parsers
    /// get past the first check), each through every parser.
    @Test func randomDatagramsNeverTrap() {
        var random = SplitMix64(seed: 0x5EED)
        var buffer = [UInt8](repeating: 0, count: 160)
        var accepted = 0
        for round in 0 ..< 100_000 {
            let length = random.below(buffer.count + 1)
            for index in 0 ..< length { buffer[index] = UInt8(truncatingIfNeeded: random.next()) }
            if round % 2 == 0 && length >= 4 {
                let packetType = UInt8(200 + random.below(8))
                let format = [1, 4, 15, 3][random.below(4)]
                buffer[0] = 0x80 | UInt8(format) | (random.below(8) == 0 ? 0x20 : 0)
                buffer[1] = packetType
                let words = length / 4 - (random.below(4) == 0 ? random.below(2) : 0)
                buffer[2] = UInt8(max(words - 1, 0) >> 8)
                buffer[3] = UInt8(max(words - 1, 0) & 0xFF)
                if packetType == 206 && format == 15 && length >= 16 {
                    buffer[12] = 0x52; buffer[13] = 0x45; buffer[14] = 0x4D; buffer[15] = 0x42
                }
            }
            accepted += buffer.withUnsafeBytes { Self.parseWithEverything(UnsafeRawBufferPointer(rebasing: $0[0 ..< length])) }
        }
        #expect(accepted > 1000)  // the biased half reaches real decoding
    }
}
