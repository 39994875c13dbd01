import Testing
@testable import OTMedia

/// VP8 temporal layers through real libvpx: TID patterns, Y and N flags, base-layer decoding,
/// and that a lost upper-layer frame breaks only the frames that read it.
@Suite struct VP8TemporalLayerTests {
    static let patterns: [(layers: Int, pattern: [Int])] = [(2, [0, 1]), (3, [0, 2, 1, 2])]

    @Test(arguments: patterns)
    func layerPatternAndBaseLayerDecoding(layers: Int, pattern: [Int]) throws {
        var settings = VP8EncoderSettings(width: 320, height: 240, bitrateKbps: 500)
        settings.temporalLayers = layers
        let encoder = try VP8Encoder(settings: settings)
        let frames = try encoder.encodeSynthetic(0..<24, forceKeyframeAt: [12])
        #expect(frames.count == 24)
        let tids = frames.map(\.temporalLayer)
        let expected = (0..<24).map { pattern[$0 % pattern.count] }
        #expect(tids == expected)
        #expect(frames.filter(\.isKeyframe).map(\.index) == [0, 12])
        // Y and N per position: every upper-layer frame but the period's last reads only
        // TL0 (Y); every upper-layer frame but TL1 of three layers updates nothing (N).
        let sync = layers == 2 ? [false, true] : [false, true, true, false]
        let nonReference = layers == 2 ? [false, true] : [false, true, false, true]
        for frame in frames {
            let position = frame.index % pattern.count
            #expect(frame.layerSync == (frame.isKeyframe || sync[position]), "Y of frame \(frame.index)")
            #expect(frame.isNonReference == (!frame.isKeyframe && nonReference[position]), "N of frame \(frame.index)")
        }

        // The base layer alone is a decodable stream.
        let base = frames.filter { $0.temporalLayer == 0 }
        let baseDecoder = try VP8Decoder()
        for frame in base {
            let picture = try #require(try baseDecoder.decode(frame))
            let reference = SyntheticVideo.frame(frame.index, width: 320, height: 240)
            #expect(VideoQuality.psnrY(reference, picture) > 28, "TL0 frame \(frame.index)")
        }
        #expect(base.count == 24 / pattern.count)

        // TL0 + TL1 (dropping TL2) also decodes cleanly.
        if layers == 3 {
            let decoder = try VP8Decoder()
            for frame in frames where frame.temporalLayer <= 1 {
                let picture = try #require(try decoder.decode(frame))
                #expect(VideoQuality.psnrY(SyntheticVideo.frame(frame.index, width: 320, height: 240), picture) > 28)
            }
        }
    }

    @Test func layersChangeOnTheLiveEncoder() throws {
        let encoder = try VP8Encoder(settings: VP8EncoderSettings(width: 320, height: 240, bitrateKbps: 500))
        let decoder = try VP8Decoder()
        var stream = try encoder.encodeSynthetic(0..<6)
        #expect(stream.allSatisfy { $0.temporalLayer == 0 })
        try encoder.setTemporalLayers(3)
        let layered = try encoder.encodeSynthetic(6..<14)
        #expect(layered.map(\.temporalLayer) == [0, 2, 1, 2, 0, 2, 1, 2])
        try encoder.setTemporalLayers(1)
        let single = try encoder.encodeSynthetic(14..<18)
        #expect(single.allSatisfy { $0.temporalLayer == 0 })
        stream += layered + single
        #expect(encoder.recreationCount == 0, "libvpx changes the layer count in place")
        for frame in stream {
            #expect(try decoder.decode(frame) != nil)
        }
    }

    /// Each period stands on TL0 alone. Three layers: losing a TL2 frame changes no other
    /// decoded picture; losing TL1 costs only the TL2 frame after it (which reads GOLDEN).
    /// Two layers: TL1 frames read only TL0 and update nothing, so any can be dropped.
    /// Checked bit for bit against a decoder that got every frame.
    @Test(arguments: [(layers: 3, frames: 16, undecodable: [5]), (layers: 3, frames: 16, undecodable: [6, 7]),
                      (layers: 3, frames: 16, undecodable: [7]), (layers: 2, frames: 12, undecodable: [3, 7])])
    func aLostUpperLayerFrameCostsOnlyItsDependents(layers: Int, frames count: Int, undecodable: [Int]) throws {
        var settings = VP8EncoderSettings(width: 320, height: 240, bitrateKbps: 500)
        settings.temporalLayers = layers
        let frames = try VP8Encoder(settings: settings).encodeSynthetic(0..<count)
        let complete = try VP8Decoder(), lossy = try VP8Decoder()
        for frame in frames {
            let reference = try #require(try complete.decode(frame))
            guard !undecodable.contains(frame.index) else { continue }
            let picture = try #require(try lossy.decode(frame))
            #expect(VideoQuality.psnrYUV(reference, picture) == 100, "frame \(frame.index) without \(undecodable), \(layers) layers")
        }
    }

    @Test func bitrateSplitIsCumulativeAndIncreasing() {
        let two = VP8TemporalLayers(count: 2)
        #expect((0..<2).map { two.cumulativeBitrate(layer: $0, totalKbps: 1000) } == [600, 1000])
        let three = VP8TemporalLayers(count: 3)
        #expect((0..<3).map { three.cumulativeBitrate(layer: $0, totalKbps: 1000) } == [400, 600, 1000])
        #expect((0..<3).map { three.cumulativeBitrate(layer: $0, totalKbps: 3) } == [1, 2, 3])
    }
}
