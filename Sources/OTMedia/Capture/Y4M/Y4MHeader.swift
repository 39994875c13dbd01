/// The stream header of a YUV4MPEG2 (Y4M) file: `YUV4MPEG2 W640 H480 F30:1 Ip A1:1 C420jpeg`.
///
/// Only 8-bit 4:2:0 is accepted (C420, C420jpeg, C420paldv, C420mpeg2, or no C tag),
/// since that is I420 byte for byte. Cost: parses one short line.
public struct Y4MHeader: Sendable, Equatable {
    /// Picture size and frame rate from the W, H and F tags.
    public var format: VideoFormat

    /// Parses the header line (without its newline).
    public init(line: String) throws(MediaError) {
        let fields = line.split(separator: " ")
        guard fields.first == "YUV4MPEG2" else {
            throw MediaError(.malformedInput, "not a Y4M file: it must start with 'YUV4MPEG2'")
        }
        var width = 0, height = 0, num = 30, den = 1
        for field in fields.dropFirst() {
            let tag = field.first, value = field.dropFirst()
            switch tag {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "F":
                let parts = value.split(separator: ":")
                guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0 else {
                    throw MediaError(.malformedInput, "Y4M frame rate '\(field)' is not of the form F<num>:<den>")
                }
                num = n; den = d
            case "C":
                guard ["420", "420jpeg", "420paldv", "420mpeg2"].contains(String(value)) else {
                    throw MediaError(.unsupportedFormat, "Y4M colour space '\(value)' is not supported; convert to 8-bit 4:2:0 (C420jpeg), e.g. ffmpeg -pix_fmt yuv420p")
                }
            case "I":
                guard value == "p" || value == "?" else {
                    throw MediaError(.unsupportedFormat, "interlaced Y4M (I\(value)) is not supported; deinterlace first")
                }
            default: continue  // A (aspect) and X (comments) do not matter here.
            }
        }
        let format = VideoFormat(width: width, height: height, frameRateNumerator: num, frameRateDenominator: den)
        do { try format.validate() } catch {
            throw MediaError(.malformedInput, "Y4M header gives \(width)x\(height) at \(num)/\(den) fps: \(error.message)")
        }
        self.format = format
    }
}
