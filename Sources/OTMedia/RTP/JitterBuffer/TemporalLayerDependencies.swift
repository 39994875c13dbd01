/// Which frames of a VP8 stream can still be decoded after others were lost or skipped,
/// from the RFC 7741 temporal-layer fields alone (TID, Y, TL0PICIDX, N), as WebRTC's
/// receiver does: a lost upper-layer frame then costs only the frames that depend on it,
/// not a keyframe round.
///
/// State: one "broken" bit per layer, "the reference buffer this layer updates may be
/// corrupt" (bit 0, the base layer broken, means only a keyframe helps), and the
/// TL0PICIDX of the last base-layer frame decoded. The rules hold for any RFC 7741 sender:
///
/// - a keyframe is decodable and clears everything;
/// - TID 0: decodable when the base layer is intact and its TL0PICIDX is the last + 1
///   (mod 256); any other index means a base-layer frame went missing;
/// - TID t > 0 with Y = 1: decodable when the base layer is intact and its TL0PICIDX is
///   the last one (a new index means its TL0 frame went missing); decoding it repairs t;
/// - TID t > 0 with Y = 0: decodable when layers 0...t are intact and TL0PICIDX matches;
/// - a frame not decoded (skipped or lost) with a known TID t breaks layer t, unless its
///   N bit says it updates no buffer; a frame lost without any packet (TID unknown)
///   breaks every upper layer (were it a TL0 frame, the next TL0PICIDX shows it);
/// - a frame without TID or TL0PICIDX (a stream without temporal layers) that is not
///   decoded breaks the base layer: any loss waits for a keyframe, as without layers.
///
/// Cost: three bytes of state; every call is O(1) and allocates nothing.
public struct TemporalLayerDependencies: Sendable, Equatable {
    /// What the dependency rules read of one frame (from its payload descriptor; every
    /// VP8 packet of a frame carries the same fields).
    public struct Frame: Sendable, Equatable {
        /// The frame is a keyframe.
        public var isKeyframe: Bool
        /// TID, nil when the descriptor has no T field.
        public var temporalLayer: UInt8?
        /// Y: the frame depends only on base-layer frames.
        public var layerSync: Bool
        /// TL0PICIDX, nil when absent.
        public var tl0PicIdx: UInt8?
        /// N: the frame updates no reference buffer.
        public var isNonReference: Bool

        /// Describes one frame; the defaults are a delta frame without layer fields.
        public init(isKeyframe: Bool = false, temporalLayer: UInt8? = nil, layerSync: Bool = false,
                    tl0PicIdx: UInt8? = nil, isNonReference: Bool = false) {
            self.isKeyframe = isKeyframe
            self.temporalLayer = temporalLayer
            self.layerSync = layerSync
            self.tl0PicIdx = tl0PicIdx
            self.isNonReference = isNonReference
        }

        /// Both TID and TL0PICIDX present: the layer rules apply.
        var isLayered: Bool { temporalLayer != nil && tl0PicIdx != nil }
    }

    /// Bit t set: layer t's reference may be corrupt. Starts with the base layer broken:
    /// nothing decodes before the first keyframe.
    private var broken: UInt8 = 1
    private var lastTL0PicIdx: UInt8?
    /// Whether the last frame seen had layer fields (what a frame lost whole was likely).
    private var layered = false

    /// Waiting for a keyframe (at the start, and after the base layer broke).
    public init() {}

    /// True while only a keyframe can be decoded: the caller asks for one.
    public var needsKeyframe: Bool { broken & 1 != 0 }

    /// The layers whose reference may be corrupt, bit t for TID t (for tests and logs).
    public var brokenLayers: UInt8 { broken }

    /// Decides whether `frame`, complete and next in order, can be decoded. True: decode
    /// it (the state now counts it decoded). False: drop it; the state already counts it
    /// skipped (what it breaks is broken).
    public mutating func admit(_ frame: Frame) -> Bool {
        if frame.isKeyframe {
            broken = 0
            lastTL0PicIdx = frame.tl0PicIdx
            layered = frame.isLayered
            return true
        }
        layered = frame.isLayered
        guard !needsKeyframe else { return false }
        guard let tid = frame.temporalLayer, let tl0 = frame.tl0PicIdx else {
            // No layer fields: any frame missed since the keyframe may be its reference.
            if broken != 0 { broken |= 1 }
            return broken == 0
        }
        if tid == 0 {
            // Without an index to compare (a keyframe that had none) nothing known is missing.
            if let last = lastTL0PicIdx, tl0 != last &+ 1 {
                broken |= 1
                return false
            }
            lastTL0PicIdx = tl0
            return true
        }
        if let last = lastTL0PicIdx, tl0 != last {
            // The TL0 frame this one builds on never arrived.
            broken |= 1
            return false
        }
        let layer = min(tid, 3)
        let needs: UInt8 = frame.layerSync ? 1 : (2 << layer) - 1
        guard broken & needs == 0 else {
            notDecoded(frame)
            return false
        }
        if frame.layerSync { broken &= ~(1 << layer) }
        return true
    }

    /// Whether losing the frames before `frame` (and `frame` itself with `includingIt`)
    /// would break the base layer, now intact, so a keyframe would be needed: `frame` is a
    /// keyframe or TL0 frame at stake, has no layer fields, or its TL0PICIDX shows a TL0
    /// frame among those before it. Reads the state only.
    public func lossBreaksBaseLayer(upTo frame: Frame, includingIt: Bool) -> Bool {
        guard let tid = frame.temporalLayer, let tl0 = frame.tl0PicIdx, let last = lastTL0PicIdx else { return true }
        if includingIt && (frame.isKeyframe || tid == 0) { return true }
        return tl0 != (tid == 0 ? last &+ 1 : last)
    }

    /// A frame with these fields will not be decoded (given up incomplete, or too big).
    public mutating func notDecoded(_ frame: Frame) {
        layered = frame.isLayered
        guard let tid = frame.temporalLayer, frame.isLayered, !frame.isKeyframe, tid > 0 else {
            // A base-layer frame, a keyframe, or a stream without layers: only a keyframe helps.
            broken |= 1
            return
        }
        if !frame.isNonReference { broken |= 1 << min(tid, 3) }
    }

    /// One or more frames were lost without any of their packets arriving.
    public mutating func framesLostWhole() {
        // With layers, a lost TL0 frame shows in the next frame's TL0PICIDX. TID has 2 bits.
        broken |= layered ? 0b1110 : 1
    }

    /// The decoder's reference is gone (it refused a frame): wait for a keyframe.
    public mutating func referenceLost() {
        broken |= 1
    }

    /// Back to the start: wait for a keyframe, forget the stream.
    public mutating func reset() {
        self = TemporalLayerDependencies()
    }
}
