import Testing
@testable import OTMedia

/// Opus RTP payloads (RFC 7587) and the TOC byte (RFC 6716 section 3.1): the TOC table,
/// RFC 6716 section 3.4's packet rules, and real libopus packets.
@Suite struct OpusPayloadTests {
    struct TOCCase: Sendable, CustomTestStringConvertible {
        let byte: UInt8
        let config: UInt8
        let stereo: Bool
        let code: UInt8
        let mode: OpusTOC.Mode
        let bandwidth: OpusTOC.Bandwidth
        let samples: Int
        var testDescription: String { "TOC 0x\(String(byte, radix: 16))" }
    }

    static let tocs: [TOCCase] = [
        TOCCase(byte: 0x00, config: 0, stereo: false, code: 0, mode: .silk, bandwidth: .narrowband, samples: 480),      // SILK NB 10 ms
        TOCCase(byte: 0x0C, config: 1, stereo: true, code: 0, mode: .silk, bandwidth: .narrowband, samples: 960),       // SILK NB 20 ms stereo
        TOCCase(byte: 0x19, config: 3, stereo: false, code: 1, mode: .silk, bandwidth: .narrowband, samples: 2880),     // SILK NB 60 ms
        TOCCase(byte: 0x30, config: 6, stereo: false, code: 0, mode: .silk, bandwidth: .mediumband, samples: 1920),     // SILK MB 40 ms
        TOCCase(byte: 0x48, config: 9, stereo: false, code: 0, mode: .silk, bandwidth: .wideband, samples: 960),        // SILK WB 20 ms
        TOCCase(byte: 0x62, config: 12, stereo: false, code: 2, mode: .hybrid, bandwidth: .superWideband, samples: 480),// hybrid SWB 10 ms
        TOCCase(byte: 0x78, config: 15, stereo: false, code: 0, mode: .hybrid, bandwidth: .fullband, samples: 960),     // hybrid FB 20 ms
        TOCCase(byte: 0x83, config: 16, stereo: false, code: 3, mode: .celt, bandwidth: .narrowband, samples: 120),     // CELT NB 2.5 ms
        TOCCase(byte: 0xA5, config: 20, stereo: true, code: 1, mode: .celt, bandwidth: .wideband, samples: 120),        // CELT WB 2.5 ms
        TOCCase(byte: 0xD8, config: 27, stereo: false, code: 0, mode: .celt, bandwidth: .superWideband, samples: 960),  // CELT SWB 20 ms
        TOCCase(byte: 0xE8, config: 29, stereo: false, code: 0, mode: .celt, bandwidth: .fullband, samples: 240),       // CELT FB 5 ms
        TOCCase(byte: 0xFC, config: 31, stereo: true, code: 0, mode: .celt, bandwidth: .fullband, samples: 960),        // CELT FB 20 ms stereo
    ]

    @Test(arguments: tocs)
    func tocFields(_ c: TOCCase) {
        let toc = OpusTOC(c.byte)
        #expect(toc.config == c.config && toc.isStereo == c.stereo && toc.frameCountCode == c.code)
        #expect(toc.mode == c.mode && toc.bandwidth == c.bandwidth && toc.frameSamples == c.samples)
        #expect(toc.byte == c.byte)
    }

    struct PacketCase: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        /// Frames when valid, nil when rejected.
        let frames: Int?
        var testDescription: String { name }
    }

    static let packets: [PacketCase] = [
        PacketCase(name: "code 0", bytes: [0xF8, 1, 2, 3], frames: 1),
        PacketCase(name: "code 0 DTX (TOC only)", bytes: [0xF8], frames: 1),
        PacketCase(name: "empty", bytes: [], frames: nil),
        PacketCase(name: "code 1 even", bytes: [0xF9, 1, 2], frames: 2),
        PacketCase(name: "code 1 odd (R3)", bytes: [0xF9, 1, 2, 3], frames: nil),
        PacketCase(name: "code 2", bytes: [0xFA, 2, 9, 9, 8], frames: 2),
        PacketCase(name: "code 2 two-byte length", bytes: [0xFA, 252, 0] + [UInt8](repeating: 1, count: 252), frames: 2),
        PacketCase(name: "code 2 first frame too long (R4)", bytes: [0xFA, 5, 1], frames: nil),
        PacketCase(name: "code 2 length cut off (R4)", bytes: [0xFA], frames: nil),
        PacketCase(name: "code 2 two-byte length cut off (R4)", bytes: [0xFA, 253], frames: nil),
        PacketCase(name: "code 3 CBR 3 frames", bytes: [0xFB, 0x03, 1, 2, 3], frames: 3),
        PacketCase(name: "code 3 CBR unequal (R6)", bytes: [0xFB, 0x03, 1, 2], frames: nil),
        PacketCase(name: "code 3 no count byte", bytes: [0xFB], frames: nil),
        PacketCase(name: "code 3 zero frames (R5)", bytes: [0xFB, 0x00], frames: nil),
        PacketCase(name: "code 3 over 120 ms (R5)", bytes: [0xFB, 0x07], frames: nil),        // 7 x 20 ms
        PacketCase(name: "code 3 6 x 20 ms = 120 ms", bytes: [0xFB, 0x06], frames: 6),
        PacketCase(name: "code 3 VBR", bytes: [0xFB, 0x82, 1, 9, 8], frames: 2),
        PacketCase(name: "code 3 VBR lengths past end (R7)", bytes: [0xFB, 0x82, 5, 9], frames: nil),
        PacketCase(name: "code 3 padding", bytes: [0xFB, 0x41, 2, 7, 0, 0], frames: 1),
        PacketCase(name: "code 3 padding past end", bytes: [0xFB, 0x41, 9, 7], frames: nil),
        PacketCase(name: "code 3 padding length cut off", bytes: [0xFB, 0x41], frames: nil),
        PacketCase(name: "code 0 frame over 1275 bytes (R2)", bytes: [0xF8] + [UInt8](repeating: 0, count: 1276), frames: nil),
        PacketCase(name: "code 0 frame of 1275 bytes", bytes: [0xF8] + [UInt8](repeating: 0, count: 1275), frames: 1),
    ]

    @Test(arguments: packets)
    func packetRules(_ c: PacketCase) {
        let result = withRaw(c.bytes) { raw in Result { () throws(RTPError) in try OpusPayload(parsing: raw).frameCount } }
        if let frames = c.frames {
            #expect((try? result.get()) == frames)
            #expect((try? withRaw(c.bytes) { try OpusPayload(parsing: $0).samples }) == frames * OpusTOC(c.bytes[0]).frameSamples)
        } else {
            #expect(throws: RTPError.self) { try result.get() }
        }
    }

    /// Real libopus packets parse, and their 48 kHz duration is the RTP timestamp step
    /// (RFC 7587 section 4.1), whatever the channel count.
    @Test(arguments: [AudioFormat.mono20ms, .stereo20ms, .mono10ms])
    func libopusPackets(format: AudioFormat) throws {
        let packets = try OpusCodecTests.encode(OpusEncoderSettings(format: format), frames: 20) { frame, start in
            OpusTestSignals.sine(into: frame, start: start, frequency: 440, amplitudes: [0.3, 0.3])
        }
        for packet in packets {
            let payload = try withRaw(packet) { try OpusPayload(parsing: $0) }
            #expect(payload.samples == format.samplesPerChannel)
            #expect(payload.toc.isStereo == (format.channels == 2))
        }
    }
}
