import Testing
@testable import OTMedia

/// The adaptive encoder with real libvpx and libyuv on a synthetic clock: the target walks
/// the ladder down and back up with hysteresis, the camera's size and rate are the
/// ceiling, and an encoding limit lowers it.
@Suite struct AdaptiveEncoderLadderTests {
    @Test func targetWalksTheLadderDownAndBackUpWithHysteresis() throws {
        let harness = try AdaptiveEncoderHarness(settings: .init(
            video: VP8EncoderSettings(width: 1280, height: 720, frameRate: 30, bitrateKbps: 1500), ssrcs: [1]))

        let full = try harness.run(seconds: 2, target: 2_000_000)
        #expect(full.count == 60)
        #expect(full.sizes == ["1280x720"])

        // 100 kbps is far below 720p30's floor (553 kbps): straight to 640x360@15 (floor 97.75 kbps).
        let medium = try harness.run(seconds: 3, target: 100_000)
        #expect(medium.sizes == ["640x360"])
        #expect(abs(Double(medium.count) - 45) <= 45 * 0.2, "\(medium.count) frames in 3 s at 15 fps")
        #expect(medium.first?.isKeyframe == true, "a new size starts with a keyframe")
        let mediumRate = Array(medium.dropFirst(15)).bitrate(over: 2)
        let fullRate = full.bitrate(over: 2)
        print("adaptive ladder: 720p30 at \(Int(fullRate / 1000)) kbps, 360p15 at \(Int(mediumRate / 1000)) kbps (target 100)")
        #expect(mediumRate < 2.0 * 100_000, "the encoder follows the lowered target")
        #expect(mediumRate < fullRate / 3)

        // 40 kbps: below half of 360p15's floor: 320x180@7.5.
        let small = try harness.run(seconds: 3, target: 40_000)
        #expect(small.sizes == ["320x180"])
        #expect(abs(Double(small.count) - 22.5) <= 22.5 * 0.2, "\(small.count) frames in 3 s at 7.5 fps")
        #expect(harness.encoder.states[0] == VideoEncodingState(ssrc: 1, width: 320, height: 180, frameRate: 7.5,
                                                                 bitrate: 40_000, isActive: true, rungIndex: 5))

        // Plenty again: 5 s of headroom before climbing, then the ceiling in one step.
        let recoveryStart = harness.t
        let recovery = try harness.run(seconds: 8, target: 3_000_000)
        let firstFull = try #require(recovery.firstIndex { $0.width == 1280 })
        let holdFrames = recovery[firstFull].index - recoveryStart
        #expect(holdFrames >= 149 && holdFrames <= 152, "climbed after \(holdFrames) frames (5 s = 150)")
        #expect(recovery[..<firstFull].allSatisfy { $0.width == 320 }, "no rung between: the richest qualified rung is taken")
        #expect(recovery[firstFull].isKeyframe)
        let climbed = recovery[firstFull...]
        #expect(climbed.allSatisfy { $0.width == 1280 && $0.height == 720 })
        #expect(abs(climbed.count - (240 - holdFrames)) <= 1, "30 fps again")
        #expect(harness.encoder.encodings[0].encoder.recreationCount == 0, "created at the ceiling: every size is set in place")

        // Every frame decodes at its size.
        let decoder = try VP8Decoder()
        for record in full + medium + small + recovery {
            let picture = try #require(try decoder.decode(bytes: record.bytes))
            #expect(picture.width == record.width && picture.height == record.height)
        }
    }

    @Test func cameraSizeAndRateAreTheCeiling() throws {
        let harness = try AdaptiveEncoderHarness(settings: AdaptiveEncoderHarness.settings(width: 640, height: 360, frameRate: 15))
        let frames = try harness.run(seconds: 4, target: 10_000_000)
        #expect(frames.sizes == ["640x360"])
        #expect(frames.count == 60, "every frame of a 15 fps camera, no more")
        let ceiling = harness.encoder.encodings[0].ladder.rungs[0]
        #expect(ceiling.description == "640x360@15")
        #expect(harness.encoder.states[0].bitrate == ceiling.maxBitrate / 1000 * 1000, "the encoder gets at most the rung's top")
        #expect(harness.encoder.states[0].bitrate < 10_000_000)
    }

    @Test func noEstimateKeepsTheConfiguredEncoding() throws {
        let harness = try AdaptiveEncoderHarness(settings: AdaptiveEncoderHarness.settings(width: 320, height: 180, bitrateKbps: 300))
        let frames = try harness.run(seconds: 2, target: 0)
        #expect(frames.count == 60 && frames.sizes == ["320x180"])
        #expect(harness.encoder.states[0].bitrate == 300_000)
        // Once estimates came, a 0 (estimate lost) keeps the current rung.
        _ = try harness.run(seconds: 2, target: 20_000)
        let rung = harness.encoder.states[0]
        #expect(rung.frameRate == 7.5)
        _ = try harness.run(seconds: 3, target: 0)
        #expect(harness.encoder.states[0] == rung)
    }

    @Test func encodingLimitGivesSevenAndAHalfFramesAt320x180AndLifts() throws {
        let harness = try AdaptiveEncoderHarness(settings: AdaptiveEncoderHarness.settings(width: 1280, height: 720, bitrateKbps: 1500),
                                                 distinctFrames: 4)
        // Without an estimate a limit applies at once too.
        try harness.encoder.setLimit(VideoEncodingLimit(maxWidth: 320, maxHeight: 180, maxFrameRate: 7.5))
        let start = harness.now
        let limited = try harness.run(seconds: 10, target: 0)
        let span = Double(harness.now - start) / 1e9
        let rate = Double(limited.count) / span
        print("encoding limit 320x180@7.5: \(limited.count) frames over \(span) s of capture = \(rate) fps")
        #expect(abs(rate - 7.5) <= 7.5 * 0.2)
        #expect(limited.sizes == ["320x180"])
        // No estimate: the configured 1.5 Mbps, capped at 320x180@7.5's top (51.84 kbps).
        #expect(harness.encoder.states[0].bitrate == 51_000)
        // With a generous estimate the limit still holds.
        let estimated = try harness.run(seconds: 4, target: 5_000_000)
        #expect(estimated.sizes == ["320x180"])
        #expect(abs(Double(estimated.count) - 30) <= 30 * 0.2)
        // Lifted: the ceiling again at once (the last target fits it).
        try harness.encoder.setLimit(.none)
        let lifted = try harness.run(seconds: 1, target: 5_000_000)
        #expect(lifted.sizes == ["1280x720"] && lifted.count == 30)
        #expect(lifted.first?.isKeyframe == true)
        // A frame-rate-only limit keeps the size.
        try harness.encoder.setLimit(VideoEncodingLimit(maxFrameRate: 15))
        let halfRate = try harness.run(seconds: 2, target: 5_000_000)
        #expect(halfRate.sizes == ["1280x720"] && abs(halfRate.count - 30) <= 1)
    }
}
