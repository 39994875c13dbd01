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

    /// Creates the description of one packet.
    public init(sequence: UInt16, timestamp: UInt32, isFrameEnd: Bool, isFrameStart: Bool,
                isKeyframe: Bool, arrivalNanoseconds: UInt64) {
        self.sequence = sequence
        self.timestamp = timestamp
        self.isFrameEnd = isFrameEnd
        self.isFrameStart = isFrameStart
        self.isKeyframe = isKeyframe
        self.arrivalNanoseconds = arrivalNanoseconds
    }
}
