/// A complete VP8 frame put back together by `VP8Depacketizer`.
///
/// Lifetime: `data` points into the depacketizer's reusable buffer and is valid only
/// inside the event handler that received it; decode or copy it there.
/// Cost: a plain value.
public struct VP8AssembledFrame {
    /// The VP8 bitstream (RFC 6386), ready for `VP8Decoder.decode`.
    public let data: UnsafeRawBufferPointer
    /// True when the frame tag's P bit is 0 (a keyframe).
    public let isKeyframe: Bool
    /// The PictureID of its descriptors, if they carry one.
    public let pictureID: UInt16?
    /// TL0PICIDX, if present.
    public let tl0PicIdx: UInt8?
    /// TID, if present.
    public let temporalLayer: UInt8?
    /// The Y (layer sync) bit.
    public let layerSync: Bool
    /// The RTP timestamp shared by the frame's packets.
    public let rtpTimestamp: UInt32
    /// Sequence number of the frame's first packet.
    public let firstSequenceNumber: UInt16
    /// Sequence number of the frame's last packet (the one with the marker bit).
    public let lastSequenceNumber: UInt16
    /// Picture width from this keyframe's header, or from the last keyframe for inter
    /// frames (0 before any keyframe).
    public let width: Int
    /// Picture height, same rule as `width`.
    public let height: Int
}

/// Why `VP8Depacketizer` could not complete a frame.
public enum VP8FrameDefect: Sendable, Equatable {
    /// A packet inside the frame is missing (a sequence-number gap, or the marker
    /// packet never came before the next timestamp).
    case missingPackets
    /// The frame's first packet (S = 1, PID = 0) is missing.
    case missingFirstPacket
    /// A packet's descriptor or the VP8 frame header is malformed, or the frame is
    /// larger than the depacketizer's limit.
    case invalidPayload
}

/// What `VP8Depacketizer.push` reports. A push can report several events (e.g. the
/// previous frame incomplete, then a new single-packet frame complete).
public enum VP8DepacketizerEvent {
    /// A complete frame (view valid only inside the handler).
    case frame(VP8AssembledFrame)
    /// A frame that cannot be decoded: ask for a keyframe or retransmission.
    case incompleteFrame(rtpTimestamp: UInt32, pictureID: UInt16?, defect: VP8FrameDefect)
    /// Whole frames were lost: the PictureID jumped by `count + 1` (across the wrap).
    case lostFrames(count: Int, beforePictureID: UInt16)
}
