import Testing
@testable import OTMedia

/// Opus through real libopus: tone fidelity, packet-loss concealment, in-band FEC.
@Suite struct OpusCodecTests {
    /// Encodes `frames` frames made by `fill` and returns the packets.
    static func encode(_ settings: OpusEncoderSettings, frames: Int,
                       fill: (AudioFrame, Int) -> Void) throws -> [[UInt8]] {
        let encoder = try OpusEncoder(settings: settings)
        let frame = AudioFrame(format: settings.format)
        var buffer = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        var packets: [[UInt8]] = []
        for i in 0..<frames {
            fill(frame, i * settings.format.samplesPerChannel)
            let length = try buffer.withUnsafeMutableBytes { (raw) throws(MediaError) -> Int in
                try encoder.encode(frame, into: raw)
            }
            #expect(length > 0 && length <= OpusEncoder.maximumPacketSize)
            packets.append(Array(buffer[0..<length]))
        }
        return packets
    }

    static func decode(_ decoder: OpusDecoder, _ packet: [UInt8]) throws(MediaError) -> [Int16] {
        let result = packet.withUnsafeBytes { raw in
            Result { () throws(MediaError) -> [Int16] in Array(try decoder.decode(raw).buffer) }
        }
        return try result.get()
    }

    static func conceal(_ decoder: OpusDecoder, next: [UInt8]?) throws(MediaError) -> [Int16] {
        guard let next else { return Array(try decoder.concealLoss(recoveringFrom: nil).buffer) }
        let result = next.withUnsafeBytes { raw in
            Result { () throws(MediaError) -> [Int16] in Array(try decoder.concealLoss(recoveringFrom: raw).buffer) }
        }
        return try result.get()
    }

    @Test(arguments: [AudioFormat.mono20ms, .stereo20ms, .mono10ms])
    func toneSurvivesRoundTrip(format: AudioFormat) throws {
        var settings = OpusEncoderSettings(format: format)
        settings.bitrate = 32_000
        let amplitudes = [0.3, 0.15]
        let frames = 1500 / format.frameMilliseconds // 1.5 s
        let packets = try Self.encode(settings, frames: frames) { frame, start in
            OpusTestSignals.sine(into: frame, start: start, frequency: 440, amplitudes: amplitudes)
        }
        let decoder = try OpusDecoder(format: format)
        var output: [Int16] = []
        for packet in packets {
            let samples = try Self.decode(decoder, packet)
            #expect(samples.count == format.samplesPerFrame)
            output += samples
        }
        #expect(output.count == frames * format.samplesPerFrame)
        let skip = 100 * 48 // the first 100 ms: codec delay and start-up
        for c in 0..<format.channels {
            let x = Array(OpusTestSignals.channel(output, c, of: format.channels).dropFirst(skip))
            let frequency = AudioAnalysis.dominantFrequency(samples: Array(output.dropFirst(skip * format.channels)),
                                                            sampleRate: 48_000, channels: format.channels, channel: c) ?? 0
            let level = OpusTestSignals.decibels(OpusTestSignals.rms(x) / (amplitudes[c] / 2.0.squareRoot()))
            print("Opus \(format) ch\(c): \(frequency) Hz, level \(level) dB, \(packets.reduce(0) { $0 + $1.count }) bytes")
            #expect(abs(frequency - 440) <= 440 * 0.02, "channel \(c): \(frequency) Hz")
            #expect(abs(level) <= 1.5, "channel \(c): \(level) dB off")
        }
    }

    @Test func lostPacketIsConcealedWithoutAGap() throws {
        let format = AudioFormat.mono20ms
        let packets = try Self.encode(OpusEncoderSettings(format: format), frames: 50) { frame, start in
            OpusTestSignals.sine(into: frame, start: start, frequency: 440, amplitudes: [0.3])
        }
        let decoder = try OpusDecoder(format: format)
        var output: [Int16] = []
        var concealed: [Int16] = []
        for (i, packet) in packets.enumerated() {
            if i == 25 {
                concealed = try Self.conceal(decoder, next: nil)
                output += concealed
            } else {
                output += try Self.decode(decoder, packet)
            }
        }
        #expect(output.count == 50 * format.samplesPerFrame, "no gap: as many samples out as in")
        #expect(concealed.count == format.samplesPerFrame)
        let level = OpusTestSignals.rms(OpusTestSignals.channel(concealed, 0, of: 1)) / (0.3 / 2.0.squareRoot())
        print("Opus PLC frame level: \(OpusTestSignals.decibels(level)) dB")
        #expect(level > 0.25, "the concealed frame has energy (\(OpusTestSignals.decibels(level)) dB), not silence")
    }

    @Test func emptyPacketIsTreatedAsLoss() throws {
        let decoder = try OpusDecoder(format: .stereo20ms)
        let frame = try decoder.decode(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(frame.samplesPerChannel == 960)
        #expect(frame.format.channels == 2)
    }

    /// With in-band FEC, the packet after a loss rebuilds the lost frame better than PLC.
    @Test func fecRecoversALostPacketBetterThanPLC() throws {
        let format = AudioFormat.mono20ms
        var settings = OpusEncoderSettings(format: format)
        settings.bitrate = 32_000
        settings.inbandFEC = true
        settings.expectedLossPercent = 20
        let packets = try Self.encode(settings, frames: 60) { frame, start in
            OpusTestSignals.voice(into: frame, start: start)
        }
        // Frames 22, 31, 40 hold a pitch jump (every 90 ms = 4.5 frames); lose each in turn.
        for lost in [22, 31, 40] {
            let reference = try OpusDecoder(format: format)
            let plc = try OpusDecoder(format: format)
            let fec = try OpusDecoder(format: format)
            var ref: [Int16] = [], withPLC: [Int16] = [], withFEC: [Int16] = []
            for (i, packet) in packets.enumerated() {
                ref = try Self.decode(reference, packet)
                if i == lost {
                    withPLC = try Self.conceal(plc, next: nil)
                    withFEC = try Self.conceal(fec, next: packets[i + 1])
                    #expect(withFEC.count == format.samplesPerFrame)
                    break
                }
                _ = try Self.decode(plc, packet)
                _ = try Self.decode(fec, packet)
            }
            let r = OpusTestSignals.channel(ref, 0, of: 1)
            func snr(_ y: [Int16]) -> Double {
                let x = OpusTestSignals.channel(y, 0, of: 1)
                let noise = zip(r, x).map { $0 - $1 }
                return OpusTestSignals.decibels(OpusTestSignals.rms(r) / max(OpusTestSignals.rms(noise), 1e-9))
            }
            let snrPLC = snr(withPLC), snrFEC = snr(withFEC)
            print("Opus lost frame \(lost): SNR vs no-loss decode, PLC \(snrPLC) dB, FEC \(snrFEC) dB")
            #expect(snrFEC > snrPLC + 3, "frame \(lost): FEC \(snrFEC) dB vs PLC \(snrPLC) dB")
        }
    }

    @Test func invalidPacketIsACodecFailureAndDecodingGoesOn() throws {
        let packets = try Self.encode(OpusEncoderSettings(format: .mono20ms), frames: 3) { frame, start in
            OpusTestSignals.sine(into: frame, start: start, frequency: 1000, amplitudes: [0.3])
        }
        let decoder = try OpusDecoder(format: .mono20ms)
        do {
            _ = try Self.decode(decoder, [0xFF]) // code 3 (several frames) without its count byte
            Issue.record("an invalid packet was accepted")
        } catch {
            #expect(error.code == .codecFailure)
        }
        #expect(try Self.decode(decoder, packets[0]).count == 960)
    }

    @Test func wrongFramesAndSettingsAreRefused() throws {
        let encoder = try OpusEncoder(settings: OpusEncoderSettings(format: .mono20ms))
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        let stereo = AudioFrame(format: .stereo20ms)
        let odd = AudioFrame(format: .mono20ms)
        odd.samplesPerChannel = 500
        for frame in [stereo, odd] {
            let result = packet.withUnsafeMutableBytes { raw in
                Result { () throws(MediaError) -> Int in try encoder.encode(frame, into: raw) }
            }
            #expect(throws: MediaError.self) { try result.get() }
            if case .failure(let error) = result { #expect(error.code == .invalidArgument) }
        }
        #expect(throws: MediaError.self) { try encoder.setBitrate(1_000) }
        try encoder.setBitrate(64_000)
        try encoder.setExpectedLoss(percent: 15)
        #expect(encoder.settings.bitrate == 64_000 && encoder.settings.expectedLossPercent == 15)
        #expect(encoder.lookahead > 0)
    }

    @Test func bitrateSetsThePacketSize() throws {
        func bytesPerSecond(_ bitrate: Int) throws -> Int {
            var settings = OpusEncoderSettings(format: .mono20ms)
            settings.bitrate = bitrate
            let packets = try Self.encode(settings, frames: 100) { frame, start in
                OpusTestSignals.voice(into: frame, start: start)
            }
            return packets[50...].reduce(0) { $0 + $1.count } // 50 frames = 1 s
        }
        let low = try bytesPerSecond(16_000), high = try bytesPerSecond(64_000)
        print("Opus voice: 16 kbps -> \(low * 8) bit/s, 64 kbps -> \(high * 8) bit/s")
        #expect(abs(Double(low * 8) - 16_000) < 16_000 * 0.35)
        #expect(abs(Double(high * 8) - 64_000) < 64_000 * 0.35)
    }

    /// setBitrate reaches libopus on a running encoder: the same voice costs about four
    /// times the bytes after switching 16 → 64 kbps mid-stream.
    @Test func bitrateChangesWhileRunning() throws {
        let encoder = try OpusEncoder(settings: { var s = OpusEncoderSettings(format: .mono20ms); s.bitrate = 16_000; return s }())
        let frame = AudioFrame(format: .mono20ms)
        var packet = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        func bytes(frames: Range<Int>) throws -> Int {
            var total = 0
            for i in frames {
                OpusTestSignals.voice(into: frame, start: i * 960)
                total += try packet.withUnsafeMutableBytes { (raw) throws(MediaError) -> Int in try encoder.encode(frame, into: raw) }
            }
            return total
        }
        _ = try bytes(frames: 0..<50)
        let low = try bytes(frames: 50..<100)  // 1 s at 16 kbps
        try encoder.setBitrate(64_000)
        _ = try bytes(frames: 100..<125)       // rate control settles
        let high = try bytes(frames: 125..<175)
        #expect(abs(Double(low * 8) - 16_000) < 16_000 * 0.35, "\(low * 8) bit/s before")
        #expect(abs(Double(high * 8) - 64_000) < 64_000 * 0.35, "\(high * 8) bit/s after setBitrate(64 000)")
    }
}
