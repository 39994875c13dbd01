/// The camera pixel formats the engine converts to I420.
///
/// Raw formats (`yuyv`, `nv12`, `yu12`) cost one libyuv pass; `mjpeg` costs a JPEG decode
/// (libturbojpeg). The enum is a value of one byte; `fourcc` lookups are a switch.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Packed 4:2:2, Y0 U Y1 V (V4L2 `YUYV`, libyuv `YUY2`). The usual raw webcam format.
    case yuyv
    /// Planar Y then interleaved UV at 4:2:0 (V4L2 `NV12`).
    case nv12
    /// Planar Y, U, V at 4:2:0 (V4L2 `YU12`, also called I420 / YUV420): the engine's own layout.
    case yu12
    /// Motion JPEG: each frame a JPEG (V4L2 `MJPG`, or `JPEG`). Most USB webcams send 720p30 only this way.
    case mjpeg

    /// The V4L2 four-character code (`V4L2_PIX_FMT_*`), little-endian packed.
    public var fourcc: UInt32 {
        switch self {
        case .yuyv: return fourCharacterCode("YUYV")
        case .nv12: return fourCharacterCode("NV12")
        case .yu12: return fourCharacterCode("YU12")
        case .mjpeg: return fourCharacterCode("MJPG")
        }
    }

    /// The format for a V4L2 four-character code, or nil if the engine cannot convert it.
    /// `JPEG` maps to `mjpeg` too (some cameras label their MJPEG stream so).
    public init?(fourcc: UInt32) {
        switch fourcc {
        case fourCharacterCode("YUYV"): self = .yuyv
        case fourCharacterCode("NV12"): self = .nv12
        case fourCharacterCode("YU12"): self = .yu12
        case fourCharacterCode("MJPG"), fourCharacterCode("JPEG"): self = .mjpeg
        default: return nil
        }
    }

    /// The order the camera negotiation prefers when several formats give the same size
    /// and rate: raw formats first (no decode cost, no compression loss), I420 first of all.
    public static let preferenceOrder: [PixelFormat] = [.yu12, .nv12, .yuyv, .mjpeg]

    /// The four characters, e.g. "YUYV".
    public var description: String { fourCharacterString(fourcc) }
}

/// Packs four ASCII characters the way V4L2's `v4l2_fourcc` does (first character in
/// the lowest byte). Cost: arithmetic only.
public func fourCharacterCode(_ text: StaticString) -> UInt32 {
    precondition(text.utf8CodeUnitCount == 4, "a four-character code has four characters")
    let bytes = text.utf8Start
    return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
}

/// The four characters of a V4L2 code ("YUYV"); unprintable bytes become "?".
/// Cost: builds a short string.
public func fourCharacterString(_ code: UInt32) -> String {
    var text = ""
    for shift in stride(from: 0, to: 32, by: 8) {
        let byte = UInt8(truncatingIfNeeded: code >> UInt32(shift))
        text.unicodeScalars.append(byte >= 0x20 && byte < 0x7f ? Unicode.Scalar(byte) : "?")
    }
    return text
}
