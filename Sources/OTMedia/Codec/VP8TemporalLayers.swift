import CVPX

/// The temporal-layer pattern of a VP8 stream: which TID each frame gets, which
/// reference buffers it may read and update, and how the bitrate splits across layers.
///
/// Buffers: TL0 reads and updates only LAST (so TL0 alone is a decodable stream), TL1
/// updates GOLDEN, TL2 updates ALTREF; each layer reads only buffers of its own or a
/// lower layer. Layers above 0 never update the entropy context, so dropping them
/// leaves the base layer intact. The first frame of each upper layer after a keyframe
/// (or a pattern restart) reads only LAST: that is a layer-sync frame (RFC 7741 Y bit).
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
        /// `vpx_codec_encode` flags restricting references and updates.
        var flags: vpx_enc_frame_flags_t
    }

    /// Number of layers, 1...3.
    let count: Int
    private var index = 0
    /// Per layer: the next frame of that layer must be a sync frame.
    private var needsSync = (false, true, true)

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
        let tid = layer(at: position)
        switch (count, tid) {
        case (1, _):
            return FrameConfig(layer: 0, sync: false, flags: 0)
        case (_, 0):
            return FrameConfig(layer: 0, sync: false, flags: noRefGolden | noRefAltref | noUpdGolden | noUpdAltref)
        case (_, 1):
            let sync = needsSync.1
            needsSync.1 = false
            var flags = noRefAltref | noUpdLast | noUpdAltref | noUpdEntropy
            if sync { flags |= noRefGolden }
            return FrameConfig(layer: 1, sync: sync, flags: flags)
        default:
            let sync = needsSync.2
            needsSync.2 = false
            var flags = noUpdLast | noUpdGolden | noUpdEntropy
            if sync { flags |= noRefGolden | noRefAltref }
            return FrameConfig(layer: 2, sync: sync, flags: flags)
        }
    }

    /// Call when the encoder produced a keyframe it was not asked for: the pattern goes
    /// on after TL0 and every upper layer syncs again.
    mutating func didEncodeKeyframe() {
        needsSync = (false, true, true)
        index = 1 % periodicity
    }

    /// Starts the pattern again at TL0, with every upper layer syncing again.
    mutating func restart() {
        needsSync = (false, true, true)
        index = 0
    }
}
