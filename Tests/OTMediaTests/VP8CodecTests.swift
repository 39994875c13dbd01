import Testing
@testable import OTMedia

/// VP8 through real libvpx: quality, keyframes, rate control, resizing, decoder errors.
@Suite struct VP8CodecTests {
    @Test func roundTripAtVGAKeepsQuality() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 640, height: 480, frameRate: 30, bitrateKbps: 1000))
        let decoder = try VP8Decoder()
        let source = VideoFrame(width: 640, height: 480)
        var psnrs: [Double] = []
        var decodeErrors = 0
        for t in 0..<90 {
            SyntheticVideo.draw(t, into: source)
            try encoder.encode(source) { encoded in
                #expect(encoded.timestampNanoseconds == source.timestampNanoseconds)
                do {
                    guard let picture = try decoder.decode(encoded.data, timestampNanoseconds: encoded.timestampNanoseconds) else { return }
                    #expect(picture.width == 640 && picture.height == 480)
                    #expect(picture.timestampNanoseconds == source.timestampNanoseconds)
                    psnrs.append(VideoQuality.psnrY(source, picture))
                } catch {
                    decodeErrors += 1
                }
            }
        }
        #expect(decodeErrors == 0)
        #expect(psnrs.count == 90)
        let mean = psnrs.reduce(0, +) / Double(psnrs.count)
        print("VP8 640x480 1000 kbps: mean Y-PSNR \(mean) dB, min \(psnrs.min() ?? 0)")
        #expect(mean >= 32, "mean Y-PSNR \(mean) dB")
    }

    @Test func forcedKeyframeIsAStartPoint() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 320, height: 240, bitrateKbps: 400))
        let frames = try encoder.encodeSynthetic(0..<20, forceKeyframeAt: [12])
        #expect(frames.count == 20)
        #expect(frames[0].isKeyframe, "the first frame is a keyframe")
        #expect(frames[12].isKeyframe, "a forced keyframe is a keyframe")
        #expect(frames[1..<12].allSatisfy { !$0.isKeyframe })
        #expect(frames[13...].allSatisfy { !$0.isKeyframe })

        // A decoder that joins at the forced keyframe decodes from there on.
        let late = try VP8Decoder()
        for frame in frames[12...] {
            let picture = try #require(try late.decode(frame))
            let reference = SyntheticVideo.frame(frame.index, width: 320, height: 240)
            #expect(VideoQuality.psnrY(reference, picture) > 28)
        }
        // Joining at an inter frame is refused.
        let early = try VP8Decoder()
        #expect(throws: MediaError.self) { _ = try early.decode(frames[5]) }
    }

    /// A change of target shows in the output rate within two seconds: the second
    /// second after the change (frames 30...59 after it) is within 20 % of the target.
    @Test(arguments: [(1000, 300), (300, 1000)])
    func bitrateChangeTakesEffect(from: Int, to: Int) throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 640, height: 480, frameRate: 30, bitrateKbps: from))
        let before = try encoder.encodeSynthetic(0..<60)
        try encoder.setBitrate(kbps: to)
        #expect(encoder.settings.bitrateKbps == to)
        let after = try encoder.encodeSynthetic(60..<120)
        func kbps(_ frames: ArraySlice<StoredVP8Frame>) -> Double {
            Double(frames.reduce(0) { $0 + $1.bytes.count } * 8) / (Double(frames.count) / 30) / 1000
        }
        let settled = kbps(before[30..<60])
        let measured = kbps(after[30..<60])
        print("VP8 bitrate \(from) -> \(to) kbps: before \(settled) kbps, second second after \(measured) kbps")
        #expect(abs(settled - Double(from)) <= 0.2 * Double(from), "before the change: \(settled) kbps")
        #expect(abs(measured - Double(to)) <= 0.2 * Double(to), "after the change: \(measured) kbps")
    }

    @Test func resolutionChangesDownAndUpGiveFramesOfTheNewSize() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 640, height: 480, bitrateKbps: 800))
        let decoder = try VP8Decoder()
        var stream = try encoder.encodeSynthetic(0..<10)
        try encoder.setResolution(width: 320, height: 240)
        #expect(encoder.settings.width == 320 && encoder.settings.height == 240)
        let small = try encoder.encodeSynthetic(10..<20)
        #expect(small.first?.isKeyframe == true, "a new size starts with a keyframe")
        try encoder.setResolution(width: 640, height: 480)
        let large = try encoder.encodeSynthetic(20..<30)
        #expect(large.first?.isKeyframe == true)
        #expect(encoder.recreationCount == 0, "sizes up to the first one are set in place")
        // Above the size the encoder was created with, libvpx must re-create it.
        try encoder.setResolution(width: 1280, height: 720)
        let larger = try encoder.encodeSynthetic(30..<35)
        #expect(larger.first?.isKeyframe == true)
        #expect(encoder.recreationCount == 1, "libvpx refuses growing past the first size in place")
        stream += small + large + larger

        for frame in stream {
            let picture = try #require(try decoder.decode(frame))
            #expect(picture.width == frame.width && picture.height == frame.height)
            let reference = SyntheticVideo.frame(frame.index, width: frame.width, height: frame.height)
            #expect(VideoQuality.psnrY(reference, picture) > 25, "frame \(frame.index) at \(frame.width)x\(frame.height)")
        }
        #expect(small.allSatisfy { $0.width == 320 && $0.height == 240 })
        #expect(large.allSatisfy { $0.width == 640 && $0.height == 480 })
        #expect(larger.allSatisfy { $0.width == 1280 && $0.height == 720 })
    }

    /// Padded strides (642 → 672 / 352) and odd sizes pass through unchanged.
    @Test func oddSizeWithPaddedStridesRoundTrips() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 642, height: 361, bitrateKbps: 1200))
        let decoder = try VP8Decoder()
        let frames = try encoder.encodeSynthetic(0..<10)
        for frame in frames {
            let picture = try #require(try decoder.decode(frame))
            #expect(picture.width == 642 && picture.height == 361)
            #expect(VideoQuality.psnrY(SyntheticVideo.frame(frame.index, width: 642, height: 361), picture) > 30)
            #expect(VideoQuality.psnrYUV(SyntheticVideo.frame(frame.index, width: 642, height: 361), picture) > 30)
        }
    }

    @Test func frameOfTheWrongSizeIsRefused() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 320, height: 240))
        let frame = VideoFrame(width: 160, height: 120)
        do {
            try encoder.encode(frame) { _ in }
            Issue.record("a 160x120 frame was accepted by a 320x240 encoder")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test func settingsOutOfRangeAreRefused() {
        var settings = VP8EncoderSettings(width: 320, height: 240)
        settings.temporalLayers = 4
        #expect(throws: MediaError(.invalidArgument, "4 temporal layers is not supported; use 1, 2 or 3")) {
            _ = try VP8Encoder(settings: settings)
        }
    }

    /// Garbage is refused with `codecFailure`, and the decoder then decodes a keyframe.
    @Test(arguments: [
        [UInt8](repeating: 0xFF, count: 64),                       // inter frame, absurd partition size
        [0x10, 0x02, 0x00, 0xDE, 0xAD, 0xBE, 0xEF, 0x00, 0x00, 0x00], // keyframe tag, wrong start code
        (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }, // pseudo-random bytes
    ])
    func garbageIsRefusedAndDecoderRecovers(garbage: [UInt8]) throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 320, height: 240, bitrateKbps: 400))
        let frames = try encoder.encodeSynthetic(0..<6, forceKeyframeAt: [4])
        for warm in [false, true] {
            let decoder = try VP8Decoder()
            if warm {
                for frame in frames[0..<3] { #expect(try decoder.decode(frame) != nil) }
            }
            do {
                _ = try decoder.decode(bytes: garbage)
                Issue.record("garbage decoded without an error (warm: \(warm))")
            } catch {
                #expect(error.code == .codecFailure)
            }
            let picture = try #require(try decoder.decode(frames[4]), "the keyframe after the garbage decodes")
            #expect(VideoQuality.psnrY(SyntheticVideo.frame(4, width: 320, height: 240), picture) > 28)
            #expect(try decoder.decode(frames[5]) != nil, "and so does the frame after it")
        }
    }

    @Test func emptyInputIsACodecFailure() throws {
        let decoder = try VP8Decoder()
        do {
            _ = try decoder.decode(UnsafeRawBufferPointer(start: nil, count: 0))
            Issue.record("empty input was accepted")
        } catch {
            #expect(error.code == .codecFailure)
        }
    }

    @Test func timestampsBecome90kHzTicks() {
        #expect(VP8Encoder.ticks(nanoseconds: 1_000_000_000) == 90_000)
        #expect(VP8Encoder.ticks(nanoseconds: 33_333_333) == 2_999)
        #expect(VP8Encoder.ticks(nanoseconds: UInt64.max) > 0)
    }
}
