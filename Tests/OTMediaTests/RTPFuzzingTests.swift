import Foundation
import Testing
@testable import OTMedia

/// The fuzz bodies on hostile input: random buffers and every truncation of real
/// packets never trap, and round trips hold. (libFuzzer runs the same bodies for
/// millions of inputs; these are the CI-sized version.)
@Suite struct RTPFuzzingTests {
    /// 100,000 random buffers through every parser: half with a valid RTP version so the
    /// deeper paths (CSRCs, extensions, padding) are reached.
    @Test func randomBuffersNeverTrap() {
        var rng = SplitMix64(seed: 0x5EED)
        var buffer = [UInt8](repeating: 0, count: 1600)
        var validRTP = 0, validDescriptors = 0, validOpus = 0
        for i in 0..<100_000 {
            let length = Int.random(in: 0...(i % 10 == 0 ? 1600 : 64), using: &rng)
            for j in 0..<length { buffer[j] = UInt8.random(in: 0...255, using: &rng) }
            if i % 2 == 0, length > 0 { buffer[0] = 0x80 | (buffer[0] & 0x3F) }   // version 2
            buffer.withUnsafeBytes { all in
                let raw = UnsafeRawBufferPointer(rebasing: all[0..<length])
                if (try? RTPPacket(parsing: raw)) != nil { validRTP += 1 }
                if (try? VP8PayloadDescriptor.parse(raw)) != nil { validDescriptors += 1 }
                if (try? OpusPayload(parsing: raw)) != nil { validOpus += 1 }
                RTPFuzzing.parseRTP(raw)
                VP8Fuzzing.parseDescriptor(raw)
                OpusFuzzing.parsePayload(raw)
                if i % 10 == 0 { VP8Fuzzing.depacketize(raw) }
            }
        }
        // The generator reaches both outcomes of each parser.
        #expect(validRTP > 1000 && validRTP < 100_000)
        #expect(validDescriptors > 1000 && validDescriptors < 100_000)
        #expect(validOpus > 1000 && validOpus < 100_000)
    }

    /// Real packets from libvpx frames, every prefix, through every fuzz body; and the
    /// depacketize body on a record stream of real packets (which must give frames).
    @Test func truncationsOfRealPacketsNeverTrap() throws {
        let seeds = try FuzzSeeds.make()
        for packet in seeds.rtp {
            for length in 0...packet.count {
                let prefix = Array(packet[0..<length])
                prefix.withUnsafeBytes { raw in
                    RTPFuzzing.parseRTP(raw)
                    VP8Fuzzing.parseDescriptor(raw)
                }
            }
        }
        for stream in seeds.depacketize {
            #expect(stream.withUnsafeBytes { VP8Fuzzing.depacketize($0) } == 6, "the record stream of 6 real frames gives 6 frames")
            for cut in stride(from: 0, to: stream.count, by: 97) {
                _ = Array(stream[0..<cut]).withUnsafeBytes { VP8Fuzzing.depacketize($0) }
            }
        }
    }
}

/// Real inputs for the fuzz targets, in each target's format, made from libvpx and
/// libopus output.
enum FuzzSeeds {
    struct Seeds {
        var rtp: [[UInt8]] = []
        var descriptors: [[UInt8]] = []
        var depacketize: [[UInt8]] = []
        var opus: [[UInt8]] = []
    }

    static func make() throws -> Seeds {
        var seeds = Seeds()
        // Small frames so the record format (one length byte) holds whole packets.
        var settings = VP8EncoderSettings(width: 160, height: 120, frameRate: 30, bitrateKbps: 200)
        settings.temporalLayers = 2
        let frames = try VP8Encoder(settings: settings).encodeSynthetic(0..<6)
        var packetizer = try VP8Packetizer(maxPayloadSize: 200, temporalLayers: true, initialPictureID: 32766)
        let stream = try packetize(frames, packetizer: &packetizer, firstSequence: 65534)
        var records: [UInt8] = []
        var previousTimestamp: UInt32?
        for bytes in stream.flatMap(\.packets) {
            try withRaw(bytes) { raw in
                let packet = try RTPPacket(parsing: raw)
                // The record format of VP8Fuzzing.depacketize: control, length, payload.
                var control: UInt8 = packet.marker ? 1 : 0
                if let previousTimestamp, previousTimestamp != packet.timestamp { control |= 2 }
                previousTimestamp = packet.timestamp
                records += [control, UInt8(packet.payload.count)] + Array(packet.payload)
                seeds.descriptors.append(Array(packet.payload.prefix(16)))
            }
        }
        seeds.rtp = Array(stream.flatMap(\.packets).prefix(12))
        // And one packet with every header feature.
        var header = RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, marker: true)
        try header.csrcs.append(4)
        var extensions = RTPHeaderExtensions(profile: .oneByte)
        try extensions.append(id: 3, bigEndian: 0x1234, length: 2)
        header.extensions = extensions
        seeds.rtp.append(try writeRTP(header, payload: [0x90, 0x80, 0x81, 0x00, 0x31, 0, 0], padding: 4))
        var twoByte = header
        twoByte.extensions = RTPHeaderExtensions(profile: .twoByte(appBits: 0))
        try twoByte.extensions?.append(id: 200, bigEndian: 7, length: 1)
        seeds.rtp.append(try writeRTP(twoByte, payload: [0x10, 0x31, 0, 0]))
        seeds.depacketize = [records]
        seeds.opus = try OpusCodecTests.encode(OpusEncoderSettings(format: .stereo20ms), frames: 5) { frame, start in
            OpusTestSignals.sine(into: frame, start: start, frequency: 440, amplitudes: [0.3, 0.2])
        }
        return seeds
    }
}

/// Writes the seed corpus for the libFuzzer targets when `OTKIT_FUZZ_SEED_DIR` is set:
/// one folder per target, named as `scripts/fuzz` reads them (`RTP`, `VP8Descriptor`,
/// `VP8Depacketize`, `Opus`), one file per input. Skipped otherwise. Regenerate in place:
/// `OTKIT_FUZZ_SEED_DIR=Fuzz/Corpus swift test --filter FuzzSeedCorpusTests`.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["OTKIT_FUZZ_SEED_DIR"] != nil))
struct FuzzSeedCorpusTests {
    @Test func writeSeedCorpus() throws {
        let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["OTKIT_FUZZ_SEED_DIR"]!)
        let seeds = try FuzzSeeds.make()
        let sets = [("RTP", seeds.rtp), ("VP8Descriptor", seeds.descriptors), ("VP8Depacketize", seeds.depacketize), ("Opus", seeds.opus)]
        for (name, inputs) in sets {
            let directory = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (i, input) in inputs.enumerated() {
                try Data(input).write(to: directory.appendingPathComponent(String(format: "seed-%03d", i)))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count >= inputs.count)
        }
    }
}
