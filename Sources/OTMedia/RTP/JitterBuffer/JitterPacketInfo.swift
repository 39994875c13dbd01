/// What the video jitter buffer needs to know about one RTP packet: read from the RTP
/// header and the VP8 payload descriptor by the receive pipeline.
public struct JitterPacketInfo: Sendable, Equatable {
    /// RTP sequence number.
    public var sequence: UInt16
    /// RTP timestamp (90 kHz); all packets of a frame share it.
    public var timestamp: UInt32
    /// RTP marker: the last packet of a frame.
    public var isFrameEnd: Bool
    /// The first packet of a frame (VP8: S = 1 and partition index 0).
    public var isFrameStart: Bool
    /// The frame is a keyframe (VP8: the P bit of the first partition's header is 0);
    /// only meaningful on the first packet.
    public var isKeyframe: Bool
    /// When the packet arrived, injected-clock nanoseconds.
    public var arrivalNanoseconds: UInt64
    /// The frame's temporal layer (VP8 TID), nil when the descriptor has none. Every
    /// packet of a frame carries it, so any packet of a lost frame tells its layer.
    public var temporalLayer: UInt8?
    /// VP8 Y: the frame depends only on base-layer frames.
    public var layerSync: Bool
    /// VP8 TL0PICIDX, nil when absent.
    public var tl0PicIdx: UInt8?
    /// VP8 N: the frame updates no reference buffer.
    public var isNonReference: Bool

    /// Creates the description of one packet; the layer fields default to absent (a
    /// stream without temporal layers).
    public init(sequence: UInt16, timestamp: UInt32, isFrameEnd: Bool, isFrameStart: Bool,
                isKeyframe: Bool, arrivalNanoseconds: UInt64, temporalLayer: UInt8? = nil,
                layerSync: Bool = false, tl0PicIdx: UInt8? = nil, isNonReference: Bool = false) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.isFrameEnd = isFrameEnd
        self.isFrameStart = isFrameStart
        self.isKeyframe = isKeyframe
        self.arrivalNanoseconds = arrivalNanoseconds
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.tl0PicIdx = tl0PicIdx
        self.isNonReference = isNonReference
    }

    /// The fields the temporal-layer dependency rules read.
    var dependencyFrame: TemporalLayerDependencies.Frame {
        TemporalLayerDependencies.Frame(isKeyframe: isKeyframe && isFrameStart, temporalLayer: temporalLayer,
                                        layerSync: layerSync, tl0PicIdx: tl0PicIdx, isNonReference: isNonReference)
    }
}
