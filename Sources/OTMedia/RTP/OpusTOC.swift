/// The table-of-contents byte that starts every Opus packet (RFC 6716 section 3.1).
///
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// | config  |s| c |
/// +-+-+-+-+-+-+-+-+
/// ```
/// config (0...31) selects mode, bandwidth and frame duration (Table 2 of RFC 6716);
/// s: stereo; c: frame count code (0: one frame, 1: two equal frames, 2: two frames of
/// different sizes, 3: an arbitrary number of frames).
///
/// Cost: a plain value; every property is a table lookup.
public struct OpusTOC: Sendable, Equatable {
    /// Opus's coding modes.
    public enum Mode: Sendable, Equatable { case silk, hybrid, celt }
    /// Audio bandwidths (NB 4 kHz, MB 6 kHz, WB 8 kHz, SWB 12 kHz, FB 20 kHz).
    public enum Bandwidth: Sendable, Equatable { case narrowband, mediumband, wideband, superWideband, fullband }

    /// The configuration number, 0...31.
    public let config: UInt8
    /// The s bit: the packet codes stereo.
    public let isStereo: Bool
    /// The frame count code c, 0...3.
    public let frameCountCode: UInt8

    static let configShift: UInt8 = 3
    static let stereoBit: UInt8 = 0x04
    static let frameCountMask: UInt8 = 0x03

    /// Reads a TOC byte (every byte is a valid TOC).
    public init(_ byte: UInt8) {
        config = byte >> Self.configShift
        isStereo = byte & Self.stereoBit != 0
        frameCountCode = byte & Self.frameCountMask
    }

    /// The TOC byte.
    public var byte: UInt8 { config << Self.configShift | (isStereo ? Self.stereoBit : 0) | frameCountCode }

    /// RFC 6716 Table 2: configs 0-11 SILK, 12-15 hybrid, 16-31 CELT.
    public var mode: Mode {
        switch config {
        case 0...11: return .silk
        case 12...15: return .hybrid
        default: return .celt
        }
    }

    /// RFC 6716 Table 2's bandwidth column.
    public var bandwidth: Bandwidth {
        switch config {
        case 0...3, 16...19: return .narrowband
        case 4...7: return .mediumband
        case 8...11, 20...23: return .wideband
        case 12...13, 24...27: return .superWideband
        default: return .fullband
        }
    }

    /// Samples per channel in one frame at 48 kHz: 120 (2.5 ms), 240 (5 ms), 480 (10 ms),
    /// 960 (20 ms), 1920 (40 ms) or 2880 (60 ms).
    public var frameSamples: Int {
        switch config {
        case 0...11:                                  // SILK: 10, 20, 40, 60 ms
            let index = Int(config & 3)
            return index == 3 ? 2880 : 480 << index
        case 12...15: return 480 << Int(config & 1)   // hybrid: 10, 20 ms
        default: return 120 << Int(config & 3)        // CELT: 2.5, 5, 10, 20 ms
        }
    }
}
