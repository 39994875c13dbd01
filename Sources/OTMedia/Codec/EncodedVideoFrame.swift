/// One compressed VP8 frame as the encoder hands it out.
///
/// `data` points into libvpx's packet buffer: it is valid only inside the encode
/// callback, so copy (or packetize) it there. Cost: a plain value, nothing allocated.
public struct EncodedVideoFrame {
    /// The VP8 bitstream of one frame (RFC 6386), valid only during the callback.
    public let data: UnsafeRawBufferPointer
    /// True for a keyframe (decodable on its own: a receiver can start here).
    public let isKeyframe: Bool
    /// The temporal layer (TID), 0 when the stream has no temporal layers.
    public let temporalLayer: Int
    /// RFC 7741's Y bit: this frame depends only on base-layer (TID 0) frames, so a
    /// receiver may switch up to this layer here.
    public let layerSync: Bool
    /// RFC 7741's N bit: the frame updates no reference buffer, so a receiver that loses
    /// it loses no other frame.
    public let isNonReference: Bool
    /// The source frame's capture time (monotonic clock, nanoseconds).
    public let timestampNanoseconds: UInt64
    /// The coded picture width in pixels.
    public let width: Int
    /// The coded picture height in pixels.
    public let height: Int

    /// Makes a frame description; the encoder does this, tests may too.
    public init(data: UnsafeRawBufferPointer, isKeyframe: Bool, temporalLayer: Int, layerSync: Bool,
                isNonReference: Bool = false, timestampNanoseconds: UInt64, width: Int, height: Int) {
        self.data = data
        self.isKeyframe = isKeyframe
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.isNonReference = isNonReference
        self.timestampNanoseconds = timestampNanoseconds
        self.width = width
        self.height = height
    }
}
