import Testing
@testable import OTMedia

/// Simulcast, temporal layers and publisher audio fallback in the adaptive encoder, with
/// real libvpx on a synthetic clock.
@Suite struct AdaptiveEncoderLayersTests {
    @Test func simulcastEncodesThreeSizesThatDecodeAndDropsTheTopFirst() throws {
        let harness = try AdaptiveEncoderHarness(settings: AdaptiveEncoderHarness.settings(
            width: 640, height: 360, bitrateKbps: 1000, ssrcs: [10, 11, 12]))
        let start = try harness.run(seconds: 2, target: 1_000_000, keyframeMaskAt: [40: 0b100])
        for (encoding, size) in ["640x360", "320x180", "160x90"].enumerated() {
            let frames = start.filter { $0.encoding == encoding }
            #expect(frames.count == 60, "encoding \(encoding)")
            #expect(frames.sizes == [size])
            let decoder = try VP8Decoder()
            for frame in frames {
                let picture = try #require(try decoder.decode(bytes: frame.bytes))
                #expect("\(picture.width)x\(picture.height)" == size)
            }
            // The keyframe request for encoding 2 (its SSRC) reaches only that encoding.
            #expect(frames.filter(\.isKeyframe).map(\.index) == (encoding == 2 ? [0, 40] : [0]))
        }
        // Shares 550/300/150 kbps, each capped at its rung's top (0.06 bits per pixel per frame).
        #expect(harness.encoder.states.map(\.bitrate) == [414_000, 103_000, 25_000])
        #expect(harness.encoder.states.map(\.ssrc) == [10, 11, 12])

        // 200 kbps: the top's share (110 kbps) is under 640x360@30's floor (138 kbps): off after 1 s.
        let squeezed = try harness.run(seconds: 3, target: 200_000)
        let top = squeezed.filter { $0.encoding == 0 }
        #expect(top.count >= 25 && top.count <= 31, "the top ran \(top.count) frames before going off")
        #expect(squeezed.filter { $0.encoding == 1 }.count == 90, "the middle keeps 30 fps")
        #expect(harness.encoder.states.map(\.isActive) == [false, true, true])

        // Back after 5 s of headroom, starting with a keyframe.
        let recovered = try harness.run(seconds: 7, target: 1_000_000)
        let back = recovered.filter { $0.encoding == 0 }
        let first = try #require(back.first)
        #expect(first.isKeyframe)
        #expect(abs(back.count - 60) <= 2, "the top came back after 5 of 7 s: \(back.count) frames")
        #expect(harness.encoder.states.map(\.isActive) == [true, true, true])
    }

    @Test func temporalLayersSurviveTheLadderAndTheBaseLayerDecodesAlone() throws {
        let harness = try AdaptiveEncoderHarness(settings: AdaptiveEncoderHarness.settings(
            width: 320, height: 180, bitrateKbps: 400, temporalLayers: 3))
        let frames = try harness.run(seconds: 4, target: 400_000)
        #expect(frames.count == 120)
        // 30 fps with three layers: TL0 at 7.5, TL0+1 at 15.
        #expect(frames.filter { $0.temporalLayer == 0 }.count == 30)
        #expect(frames.filter { $0.temporalLayer <= 1 }.count == 60)
        for maxLayer in [0, 1] {
            let decoder = try VP8Decoder()
            for frame in frames where frame.temporalLayer <= maxLayer {
                #expect(try decoder.decode(bytes: frame.bytes) != nil, "TL≤\(maxLayer) frame \(frame.index)")
            }
        }
    }

    @Test func fallbackStopsTheEncoderAndComesBackWithAKeyframe() throws {
        var settings = AdaptiveEncoderHarness.settings(width: 320, height: 180, bitrateKbps: 300)
        settings.fallback = .publisher
        let harness = try AdaptiveEncoderHarness(settings: settings)
        _ = try harness.run(seconds: 2, target: 500_000)
        #expect(harness.events.isEmpty)

        // 20 kbps: warning after 3 s, video off 4 s later.
        let starved = try harness.run(seconds: 8, target: 20_000)
        #expect(harness.events.map(\.event) == [.warning, .videoDisabled(reason: .qualityChanged)])
        let disabledAt = try #require(harness.events.last?.frame)
        #expect(starved.allSatisfy { $0.index < disabledAt }, "nothing encoded once video is off")
        let calls = harness.encoder.encodeCalls
        let off = try harness.run(seconds: 6, target: 20_000)
        #expect(off.isEmpty)
        #expect(harness.encoder.encodeCalls == calls, "no encoder call while video is off")
        #expect(harness.encoder.framesSuspended >= 180)
        #expect(harness.encoder.states.allSatisfy { !$0.isActive })

        // Recovery: 300 kbps for 5 s re-enables video, first frame a keyframe.
        let back = try harness.run(seconds: 7, target: 300_000)
        #expect(harness.events.map(\.event).last == .videoEnabled(reason: .qualityChanged))
        #expect(back.first?.isKeyframe == true)
        #expect(back.count > 20)
        #expect(harness.encoder.encodeCalls > calls)
        #expect(harness.encoder.states[0].isActive)
    }

    @Test func fallbackOffNeverStopsVideo() throws {
        let harness = try AdaptiveEncoderHarness(settings: AdaptiveEncoderHarness.settings(width: 320, height: 180))
        let frames = try harness.run(seconds: 15, target: 20_000)
        #expect(harness.events.isEmpty)
        // 20 kbps is under 0.8 × 30 fps's floor: at once the lowest rung (7.5 fps) for the
        // 15 s: 113 frames (the first frame at the ceiling rate's grid included).
        #expect(abs(Double(frames.count) - 113) <= 113 * 0.05, "\(frames.count) frames")
        #expect(harness.encoder.states[0].frameRate == 7.5 && harness.encoder.states[0].isActive)
    }
}
