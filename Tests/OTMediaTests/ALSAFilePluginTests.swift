import Foundation
import Testing
@testable import OTMedia

/// ALSA capture and playback through real alsa-lib PCMs with no sound card: the `file`
/// plugin over an unpaced `null` slave, defined in test-only configuration text passed
/// to the devices (the system configuration is not touched).
@Suite struct ALSAFilePluginTests {
    static func captureConfiguration(infile: String) -> String {
        """
        pcm.otkit_filecap {
            type file
            slave { pcm { type null } }
            file "/dev/null"
            infile "\(infile)"
            format "raw"
        }
        """
    }

    static func playbackConfiguration(outfile: String) -> String {
        """
        pcm.otkit_fileplay {
            type file
            slave { pcm { type null } }
            file "\(outfile)"
            format "raw"
        }
        """
    }

    @Test(arguments: [AudioFormat.mono20ms, .stereo20ms, .mono10ms, AudioFormat(channels: 2, frameMilliseconds: 10)])
    func captureReturnsTheFileByteForByte(format: AudioFormat) throws {
        let path = ToneTestSupport.temporaryPath("in.raw")
        defer { ToneTestSupport.removeDirectory(of: path) }
        // 1.5 s of input: past the end alsa's file plugin returns stale data, so the
        // file must be longer than what is captured (1 s).
        let input = ToneTestSupport.noise(count: 72_000 * format.channels, seed: UInt32(format.channels * 100 + format.frameMilliseconds))
        try Data(ToneTestSupport.bytes(input)).write(to: URL(fileURLWithPath: path))

        let microphone = try ALSAMicrophone(device: "otkit_filecap", format: format,
                                            configuration: Self.captureConfiguration(infile: path))
        try microphone.start()
        try microphone.start()  // idempotent
        let parameters = try #require(microphone.parameters)
        #expect(parameters.sampleRate == 48_000)
        #expect(parameters.channels == format.channels)
        #expect(parameters.periodFrames == 480)
        #expect(parameters.bufferFrames >= 4 * 480)

        let frames = 1_000 / format.frameMilliseconds
        var captured = [Int16]()
        for expected in 0..<frames {
            let frame = try #require(try microphone.nextFrame(timeoutMilliseconds: 1_000))
            #expect(frame.sequence == UInt64(expected))
            #expect(frame.format == format)
            captured.append(contentsOf: frame.buffer)
        }
        microphone.stop()
        microphone.stop()  // idempotent
        #expect(captured.count == 48_000 * format.channels)
        #expect(captured == Array(input[0..<captured.count]), "captured samples differ from the file")
        #expect(microphone.statistics.framesDelivered == UInt64(frames))
        #expect(microphone.parameters == nil)
    }

    @Test func aReaderHoldingEveryFrameLosesFramesVisibly() throws {
        let path = ToneTestSupport.temporaryPath("in.raw")
        defer { ToneTestSupport.removeDirectory(of: path) }
        let input = ToneTestSupport.noise(count: 48_000, seed: 9)
        try Data(ToneTestSupport.bytes(input)).write(to: URL(fileURLWithPath: path))
        let microphone = try ALSAMicrophone(device: "otkit_filecap", format: .mono20ms,
                                            configuration: Self.captureConfiguration(infile: path))
        try microphone.start()
        var held = [AudioFrame]()
        for _ in 0..<8 { held.append(try #require(try microphone.nextFrame(timeoutMilliseconds: 1_000))) }
        #expect(try microphone.nextFrame(timeoutMilliseconds: 0) == nil)
        let dropped = microphone.statistics.framesDropped
        #expect(dropped >= 1)
        held.removeAll()
        let next = try #require(try microphone.nextFrame(timeoutMilliseconds: 1_000))
        #expect(next.sequence == 8 + dropped, "lost frames leave a gap in the sequence")
        let start = Int(next.sequence) * 960
        #expect(Array(next.buffer) == Array(input[start..<(start + 960)]), "the sequence number says where the samples are")
    }

    @Test func captureTimestampsAreMonotonicAndRecent() throws {
        let path = ToneTestSupport.temporaryPath("in.raw")
        defer { ToneTestSupport.removeDirectory(of: path) }
        try Data(count: 96_000 * 2).write(to: URL(fileURLWithPath: path))
        let microphone = try ALSAMicrophone(device: "otkit_filecap", format: .mono20ms,
                                            configuration: Self.captureConfiguration(infile: path))
        let before = MonotonicClock.nanoseconds()
        try microphone.start()
        var last: UInt64 = 0
        for _ in 0..<20 {
            let frame = try #require(try microphone.nextFrame(timeoutMilliseconds: 1_000))
            #expect(frame.timestampNanoseconds >= last)
            last = frame.timestampNanoseconds
        }
        // The first sample is stamped on the monotonic clock: not after now, and not
        // before the device could have captured it (one buffer before start).
        #expect(last <= MonotonicClock.nanoseconds())
        #expect(last + 100_000_000 >= before)
    }

    @Test(arguments: [AudioFormat.mono20ms, AudioFormat(channels: 2, frameMilliseconds: 10)])
    func playbackWritesTheFramesByteForByte(format: AudioFormat) throws {
        let path = ToneTestSupport.temporaryPath("out.raw")
        defer { ToneTestSupport.removeDirectory(of: path) }
        let speaker = try ALSASpeaker(device: "otkit_fileplay", format: format,
                                      configuration: Self.playbackConfiguration(outfile: path))
        try speaker.start()
        let parameters = try #require(speaker.parameters)
        #expect(parameters.sampleRate == 48_000 && parameters.channels == format.channels)
        let frames = 1_000 / format.frameMilliseconds
        let played = ToneTestSupport.noise(count: frames * format.samplesPerFrame, seed: 77)
        let frame = AudioFrame(format: format)
        for index in 0..<frames {
            let slice = played[(index * format.samplesPerFrame)..<((index + 1) * format.samplesPerFrame)]
            for (offset, sample) in slice.enumerated() { frame.buffer[offset] = sample }
            try speaker.write(frame)
        }
        #expect(speaker.statistics.framesWritten == UInt64(frames))
        speaker.stop()
        speaker.stop()  // idempotent
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(written == ToneTestSupport.bytes(played))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/alsa/alsa.conf")))
    func configurationTextCanIncludeTheSystemFile() throws {
        // `null` is defined by the system file, not by the text itself.
        let microphone = try ALSAMicrophone(device: "null", format: .stereo20ms,
                                            configuration: "</usr/share/alsa/alsa.conf>\n")
        try microphone.start()
        defer { microphone.stop() }
        let frame = try #require(try microphone.nextFrame(timeoutMilliseconds: 1_000))
        // (alsa-lib's null PCM leaves the read buffer untouched, so the content is not checked.)
        #expect(frame.sequence == 0 && frame.format == .stereo20ms)
        #expect(microphone.parameters?.channels == 2)
    }

    @Test func badConfigurationTextIsAnInvalidArgument() throws {
        let microphone = try ALSAMicrophone(device: "x", configuration: "pcm.x { type file ")
        do {
            try microphone.start()
            Issue.record("a configuration that does not parse must be refused")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("does not parse"))
        }
    }

    @Test func aNameTheConfigurationLacksIsUnavailable() throws {
        let microphone = try ALSAMicrophone(device: "otkit_not_defined",
                                            configuration: Self.captureConfiguration(infile: "/dev/null"))
        do {
            try microphone.start()
            Issue.record("an undefined PCM must not open")
        } catch {
            #expect(error.code == .audioUnavailable)
            #expect(error.message.contains("otkit_not_defined"), "\(error.message)")
        }
    }
}
