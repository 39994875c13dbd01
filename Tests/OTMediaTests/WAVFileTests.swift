import Foundation
import Testing
@testable import OTMedia

@Suite struct WAVFileTests {
    /// A WAV file built by hand (independently of the engine's writer).
    static func wav(tag: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 48_000, bits: UInt16 = 16,
                    samples: [UInt8], chunksBeforeFmt: [(String, [UInt8])] = [],
                    chunksBeforeData: [(String, [UInt8])] = []) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + u32(UInt32(body.count)) + body + (body.count % 2 == 1 ? [0] : [])
        }
        let blockAlign = channels * bits / 8
        let fmt = u16(tag) + u16(channels) + u32(rate) + u32(rate * UInt32(blockAlign)) + u16(blockAlign) + u16(bits)
        var body = Array("WAVE".utf8)
        for (id, bytes) in chunksBeforeFmt { body += chunk(id, bytes) }
        body += chunk("fmt ", fmt)
        for (id, bytes) in chunksBeforeData { body += chunk(id, bytes) }
        body += chunk("data", samples)
        return Array("RIFF".utf8) + u32(UInt32(body.count)) + body
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func failure(_ body: () throws -> Void) -> MediaError? { ToneTestSupport.failure(body) }

    @Test(arguments: [AudioFormat.mono20ms, .stereo20ms, .mono10ms])
    func sinkThenSourceRoundTrip(format: AudioFormat) throws {
        let path = ToneTestSupport.temporaryPath("round.wav")
        defer { ToneTestSupport.removeDirectory(of: path) }
        let tone = try ToneSource(frequency: 523.25, amplitude: 0.7, format: format, paced: false)
        try tone.start()
        let sink = try WAVFileSink(path: path, format: format)
        try sink.start()
        var written = [Int16]()
        for _ in 0..<30 {
            let frame = try #require(try tone.nextFrame(timeoutMilliseconds: 0))
            written.append(contentsOf: frame.buffer)
            try sink.write(frame)
        }
        sink.stop()
        sink.stop()  // idempotent

        let source = try WAVFileSource(path: path, frameMilliseconds: format.frameMilliseconds, paced: false)
        #expect(source.format == format)
        #expect(source.samplesPerChannelInFile == 30 * format.samplesPerChannel)
        try source.start()
        let read = try ToneTestSupport.collect(source, frames: 30)
        #expect(read == written)
        let end = Self.failure { _ = try source.nextFrame(timeoutMilliseconds: 0) }
        #expect(end?.code == .endOfStream)
        #expect(source.statistics.framesDelivered == 30)
    }

    @Test func headerFieldsAreRight() throws {
        let path = ToneTestSupport.temporaryPath("header.wav")
        defer { ToneTestSupport.removeDirectory(of: path) }
        let sink = try WAVFileSink(path: path, format: .stereo20ms)
        try sink.start()
        let frame = AudioFrame(format: .stereo20ms)
        for index in 0..<frame.buffer.count { frame.buffer[index] = Int16(truncatingIfNeeded: index &* 37) }
        try sink.write(frame)
        try sink.write(frame)
        #expect(sink.dataBytes == 7_680)
        sink.stop()

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func text(_ at: Int) -> String { String(decoding: bytes[at..<(at + 4)], as: UTF8.self) }
        #expect(bytes.count == 44 + 7_680)
        #expect(text(0) == "RIFF")
        #expect(u32(4) == bytes.count - 8)
        #expect(text(8) == "WAVE")
        #expect(text(12) == "fmt ")
        #expect(u32(16) == 16)
        #expect(u16(20) == 1, "PCM")
        #expect(u16(22) == 2, "channels")
        #expect(u32(24) == 48_000, "sample rate")
        #expect(u32(28) == 48_000 * 4, "byte rate")
        #expect(u16(32) == 4, "block align")
        #expect(u16(34) == 16, "bits per sample")
        #expect(text(36) == "data")
        #expect(u32(40) == 7_680)
        #expect(Array(bytes[44..<48]) == ToneTestSupport.bytes([frame.buffer[0], frame.buffer[1]]))
    }

    @Test func unknownChunksAreSkippedAndTheLastFrameIsPadded() throws {
        let path = ToneTestSupport.temporaryPath("chunks.wav")
        defer { ToneTestSupport.removeDirectory(of: path) }
        let samples = ToneTestSupport.noise(count: 960 + 480)  // one and a half 20 ms frames
        try Self.write(Self.wav(samples: ToneTestSupport.bytes(samples),
                                chunksBeforeFmt: [("JUNK", [1, 2, 3])],  // odd size: a pad byte follows
                                chunksBeforeData: [("LIST", Array("INFOISFT".utf8)), ("fact", [0, 0, 0, 0])]),
                       to: path)
        let source = try WAVFileSource(path: path, paced: false)
        try source.start()
        let first = try #require(try source.nextFrame(timeoutMilliseconds: 0))
        #expect(Array(first.buffer) == Array(samples[0..<960]))
        let second = try #require(try source.nextFrame(timeoutMilliseconds: 0))
        #expect(second.buffer.count == 960)
        #expect(Array(second.buffer[0..<480]) == Array(samples[960...]))
        #expect(second.buffer[480...].allSatisfy { $0 == 0 }, "the partial last frame is padded with silence")
        #expect(Self.failure { _ = try source.nextFrame(timeoutMilliseconds: 0) }?.code == .endOfStream)
        // Restarting reads from the beginning.
        source.stop()
        try source.start()
        let again = try #require(try source.nextFrame(timeoutMilliseconds: 0))
        #expect(Array(again.buffer) == Array(samples[0..<960]))
    }

    @Test func extensiblePCMIsAccepted() throws {
        let path = ToneTestSupport.temporaryPath("ext.wav")
        defer { ToneTestSupport.removeDirectory(of: path) }
        // WAVE_FORMAT_EXTENSIBLE: 40-byte fmt with the PCM sub-format GUID.
        var fmt: [UInt8] = [0xFE, 0xFF, 1, 0, 0x80, 0xBB, 0, 0, 0x00, 0x77, 1, 0, 2, 0, 16, 0, 22, 0, 16, 0, 4, 0, 0, 0]
        fmt += [1, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
        let samples = ToneTestSupport.noise(count: 960)
        var body = Array("WAVE".utf8) + Array("fmt ".utf8) + [40, 0, 0, 0] + fmt
        body += Array("data".utf8) + [0x80, 0x07, 0, 0] + ToneTestSupport.bytes(samples)
        let count = UInt32(body.count)
        let file = Array("RIFF".utf8) + [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16), 0] + body
        try Self.write(file, to: path)
        let source = try WAVFileSource(path: path, paced: false)
        try source.start()
        let frame = try #require(try source.nextFrame(timeoutMilliseconds: 0))
        #expect(Array(frame.buffer) == samples)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [UInt8]
        let code: MediaError.Code
        let mentions: String
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = {
        let good = wav(samples: ToneTestSupport.bytes(ToneTestSupport.noise(count: 960)))
        return [
            Malformed(name: "truncated header", bytes: Array(good[0..<20]), code: .malformedInput, mentions: "truncated"),
            Malformed(name: "shorter than RIFF", bytes: Array(good[0..<6]), code: .malformedInput, mentions: "RIFF"),
            Malformed(name: "not RIFF", bytes: Array("OggS".utf8) + Array(good[4...]), code: .malformedInput, mentions: "RIFF"),
            Malformed(name: "RIFF but not WAVE", bytes: Array(good[0..<8]) + Array("AVI ".utf8) + Array(good[12...]),
                      code: .malformedInput, mentions: "not WAVE"),
            Malformed(name: "8-bit PCM", bytes: wav(bits: 8, samples: [128, 128]), code: .unsupportedFormat, mentions: "8-bit"),
            Malformed(name: "44.1 kHz", bytes: wav(rate: 44_100, samples: [0, 0]), code: .unsupportedFormat, mentions: "44100 Hz"),
            Malformed(name: "IEEE float", bytes: wav(tag: 3, bits: 32, samples: [0, 0, 0, 0]), code: .unsupportedFormat,
                      mentions: "float"),
            Malformed(name: "six channels", bytes: wav(channels: 6, samples: [UInt8](repeating: 0, count: 12)),
                      code: .unsupportedFormat, mentions: "6 channels"),
        ]
    }()

    @Test(arguments: malformed)
    func malformedFilesAreRejectedClearly(_ item: Malformed) throws {
        let path = ToneTestSupport.temporaryPath("bad.wav")
        defer { ToneTestSupport.removeDirectory(of: path) }
        try Self.write(item.bytes, to: path)
        let error = try #require(Self.failure { _ = try WAVFileSource(path: path, paced: false) })
        #expect(error.code == item.code, "\(error)")
        #expect(error.message.contains(item.mentions), "\(error.message)")
        #expect(error.message.contains(path))
    }

    @Test func missingFileAndWrongFramesAreReported() throws {
        let path = ToneTestSupport.temporaryPath("absent.wav")
        defer { ToneTestSupport.removeDirectory(of: path) }
        #expect(Self.failure { _ = try WAVFileSource(path: path) }?.code == .noSuchDevice)
        let sink = try WAVFileSink(path: path, format: .mono20ms)
        #expect(Self.failure { try sink.write(AudioFrame(format: .mono20ms)) }?.code == .invalidArgument)
        try sink.start()
        #expect(Self.failure { try sink.write(AudioFrame(format: .stereo20ms)) }?.code == .invalidArgument)
        sink.stop()
        let empty = try WAVFileSource(path: path, paced: false)
        try empty.start()
        #expect(Self.failure { _ = try empty.nextFrame(timeoutMilliseconds: 0) }?.code == .endOfStream)
    }
}
