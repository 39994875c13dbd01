/// The start of a VP8 frame (RFC 6386 section 9.1, repeated as the "VP8 payload header"
/// in RFC 7741 section 4.3): the frame tag, and for keyframes the start code and size.
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |Size0|H| VER |P|   P = 0: keyframe (inverse key frame flag)
/// +-+-+-+-+-+-+-+-+   H: show_frame; VER: version;
/// |     Size1     |   first partition size = Size0 + 8 Size1 + 2048 Size2
/// +-+-+-+-+-+-+-+-+
/// |     Size2     |
/// +-+-+-+-+-+-+-+-+
/// keyframes only:
/// | 0x9d | 0x01 | 0x2a |  start code
/// | width (14 bits LE) + horizontal scale (2) | height (14 bits LE) + vertical scale (2) |
/// ```
///
/// Cost: reads at most 10 bytes; nothing allocated.
public struct VP8FrameHeader: Sendable, Equatable {
    /// P = 0: the frame is a keyframe.
    public var isKeyframe: Bool
    /// H: the decoder shows this frame.
    public var showFrame: Bool
    /// VER: the bitstream version (0...3 in use).
    public var version: UInt8
    /// Bytes in the first partition.
    public var firstPartitionSize: Int
    /// Keyframes: picture width in pixels (14 bits); 0 for inter frames.
    public var width: Int
    /// Keyframes: picture height in pixels (14 bits); 0 for inter frames.
    public var height: Int
    /// Keyframes: horizontal upscaling code (2 bits).
    public var horizontalScale: UInt8
    /// Keyframes: vertical upscaling code (2 bits).
    public var verticalScale: UInt8

    static let inverseKeyframeBit: UInt8 = 0x01
    static let versionShift: UInt8 = 1
    static let versionMask: UInt8 = 0x07
    static let showFrameBit: UInt8 = 0x10
    static let size0Shift: UInt8 = 5
    static let startCode: (UInt8, UInt8, UInt8) = (0x9D, 0x01, 0x2A)
    static let dimensionMask: UInt16 = 0x3FFF
    static let scaleShift: UInt16 = 14
    /// Bytes a keyframe header occupies (tag 3, start code 3, sizes 4).
    public static let keyframeHeaderSize = 10
    /// Bytes an inter-frame header occupies (the frame tag).
    public static let interframeHeaderSize = 3

    /// Parses the frame start. Throws `truncated` when the tag (or, for a keyframe, the
    /// start code and sizes) is cut off, and `fieldOutOfRange` for a keyframe without the
    /// 9d 01 2a start code or with a zero width or height.
    public init(parsing frame: UnsafeRawBufferPointer) throws(RTPError) {
        guard frame.count >= Self.interframeHeaderSize else {
            throw .truncated(what: "VP8 frame tag", needed: Self.interframeHeaderSize, available: frame.count)
        }
        let tag = frame[0]
        isKeyframe = tag & Self.inverseKeyframeBit == 0
        version = (tag >> Self.versionShift) & Self.versionMask
        showFrame = tag & Self.showFrameBit != 0
        firstPartitionSize = Int(tag >> Self.size0Shift) | Int(frame[1]) << 3 | Int(frame[2]) << 11
        width = 0
        height = 0
        horizontalScale = 0
        verticalScale = 0
        guard isKeyframe else { return }
        guard frame.count >= Self.keyframeHeaderSize else {
            throw .truncated(what: "VP8 keyframe header", needed: Self.keyframeHeaderSize, available: frame.count)
        }
        guard frame[3] == Self.startCode.0, frame[4] == Self.startCode.1, frame[5] == Self.startCode.2 else {
            throw .fieldOutOfRange(what: "VP8 keyframe start code", value: Int(frame[3]) << 16 | Int(frame[4]) << 8 | Int(frame[5]))
        }
        let w = UInt16(frame[6]) | UInt16(frame[7]) << 8
        let h = UInt16(frame[8]) | UInt16(frame[9]) << 8
        width = Int(w & Self.dimensionMask)
        height = Int(h & Self.dimensionMask)
        horizontalScale = UInt8(w >> Self.scaleShift)
        verticalScale = UInt8(h >> Self.scaleShift)
        guard width > 0, height > 0 else { throw .fieldOutOfRange(what: "VP8 keyframe size", value: width * 16384 + height) }
    }
}
