import CVPX

/// The temporal-layer pattern of a VP8 stream: which TID each frame gets, which
/// reference buffers it may read and update, and how the bitrate splits across layers.
///
/// Every period of the pattern stands on TL0 alone, so a lost upper-layer frame costs
/// only the frames of its own period that read it, never a keyframe (WebRTC's
/// "3 layers, sync every period" scheme):
///
/// | layers | position | TID | reads          | updates | Y | N |
/// |--------|----------|-----|----------------|---------|---|---|
/// | 2, 3   | 0        | 0   | LAST           | LAST    | 0 | 0 |
/// | 2      | 1        | 1   | LAST           | nothing | 1 | 1 |
/// | 3      | 1        | 2   | LAST           | nothing | 1 | 1 |
/// | 3      | 2        | 1   | LAST           | GOLDEN  | 1 | 0 |
/// | 3      | 3        | 2   | LAST, GOLDEN   | nothing | 0 | 1 |
///
/// TL0 alone is a decodable stream; layers above 0 never update the entropy context, so
/// dropping them leaves the base layer intact. Y (RFC 7741 layer sync): the frame reads
/// only TL0's buffer; N (non-reference): the frame updates no buffer, so losing it
/// breaks no other frame. A keyframe updates every buffer and the pattern goes on at
/// position 1.
///
/// Patterns (TID per frame): 1 layer: 0; 2 layers: 0,1; 3 layers: 0,2,1,2.
/// Bitrate split (cumulative, as libvpx expects): 2 layers 60/100 %, 3 layers 40/60/100 %.
/// Cost: a few integers; `next` is arithmetic only.
struct VP8TemporalLayers {
    /// What the encoder must do for one frame.
    struct FrameConfig {
        /// The TID to tag the frame with.
        var layer: Int
        /// True when the frame reads only base-layer buffers (RFC 7741 Y bit).
        var sync: Bool
        /// True when the frame updates no reference buffer (RFC 7741 N bit).
        var nonReference = false
        /// `vpx_codec_encode` flags restricting references and updates.
        var flags: vpx_enc_frame_flags_t
    }

    /// Number of layers, 1...3.
    let count: Int
    private var index = 0

    init(count: Int) {
        precondition((1...3).contains(count), "1...3 temporal layers")
        self.count = count
    }

    /// Frames in one repetition of the pattern.
    var periodicity: Int { count == 3 ? 4 : count }

    /// The TID of position `i` in the pattern.
    func layer(at i: Int) -> Int {
        switch count {
        case 2: return i % 2
        case 3:
            switch i % 4 {
            case 0: return 0
            case 2: return 1
            default: return 2
            }
        default: return 0
        }
    }

    /// Cumulative target bitrate of layers 0...layer, in kbps (strictly increasing, as
    /// libvpx requires).
    func cumulativeBitrate(layer: Int, totalKbps: Int) -> Int {
        let percents = count == 3 ? [40, 60, 100] : count == 2 ? [60, 100] : [100]
        var previous = 0
        var value = 0
        for l in 0...layer {
            value = l == count - 1 ? totalKbps : max(previous + 1, totalKbps * percents[l] / 100)
            previous = value
        }
        return value
    }

    /// Writes the temporal-layer rate-control fields of an encoder configuration.
    func configure(_ cfg: inout vpx_codec_enc_cfg_t, totalKbps: Int) {
        cfg.ts_number_layers = UInt32(count)
        cfg.ts_periodicity = UInt32(count == 1 ? 0 : periodicity)
        withUnsafeMutableBytes(of: &cfg.ts_target_bitrate) { raw in
            let rates = raw.bindMemory(to: UInt32.self)
            for i in rates.indices { rates[i] = 0 }
            for l in 0..<count { rates[l] = UInt32(cumulativeBitrate(layer: l, totalKbps: totalKbps)) }
        }
        withUnsafeMutableBytes(of: &cfg.ts_rate_decimator) { raw in
            let decimators = raw.bindMemory(to: UInt32.self)
            for i in decimators.indices { decimators[i] = 0 }
            for l in 0..<count { decimators[l] = UInt32(1 << (count - 1 - l)) }
        }
        withUnsafeMutableBytes(of: &cfg.ts_layer_id) { raw in
            let ids = raw.bindMemory(to: UInt32.self)
            for i in ids.indices { ids[i] = 0 }
            if count > 1 { for i in 0..<periodicity { ids[i] = UInt32(layer(at: i)) } }
        }
    }

    /// The next frame's configuration. `keyframe` restarts the pattern at TL0.
    mutating func next(keyframe: Bool) -> FrameConfig {
        if keyframe {
            didEncodeKeyframe()
            return FrameConfig(layer: 0, sync: true, flags: 0)
        }
        let position = index
        index = (index + 1) % periodicity
        let noRefGolden = vpx_enc_frame_flags_t(VP8_EFLAG_NO_REF_GF)
        let noRefAltref = vpx_enc_frame_flags_t(VP8_EFLAG_NO_REF_ARF)
        let noUpdLast = vpx_enc_frame_flags_t(VP8_EFLAG_NO_UPD_LAST)
        let noUpdGolden = vpx_enc_frame_flags_t(VP8_EFLAG_NO_UPD_GF)
        let noUpdAltref = vpx_enc_frame_flags_t(VP8_EFLAG_NO_UPD_ARF)
        let noUpdEntropy = vpx_enc_frame_flags_t(VP8_EFLAG_NO_UPD_ENTROPY)
        // Upper layers never touch LAST, ALTREF or the entropy context.
        let upper = noRefAltref | noUpdLast | noUpdAltref | noUpdEntropy
        switch (count, position) {
        case (1, _):
            return FrameConfig(layer: 0, sync: false, flags: 0)
        case (_, 0):
            return FrameConfig(layer: 0, sync: false, flags: noRefGolden | noRefAltref | noUpdGolden | noUpdAltref)
        case (2, _):
            return FrameConfig(layer: 1, sync: true, nonReference: true, flags: upper | noRefGolden | noUpdGolden)
        case (_, 1):
            return FrameConfig(layer: 2, sync: true, nonReference: true, flags: upper | noRefGolden | noUpdGolden)
        case (_, 2):
            return FrameConfig(layer: 1, sync: true, flags: upper | noRefGolden)
        default:
            // Reads GOLDEN, which position 2 of this same period wrote.
            return FrameConfig(layer: 2, sync: false, nonReference: true, flags: upper | noUpdGolden)
        }
    }

    /// Call when the encoder produced a keyframe it was not asked for: the pattern goes
    /// on after TL0 (the keyframe filled every buffer).
    mutating func didEncodeKeyframe() {
        index = 1 % periodicity
    }

    /// Starts the pattern again at TL0.
    mutating func restart() {
        index = 0
    }
}
