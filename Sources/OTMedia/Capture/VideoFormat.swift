/// The size and rate of a video stream.
///
/// The rate is a fraction (`frameRateNumerator / frameRateDenominator` frames per
/// second) because that is what V4L2 and Y4M carry: 30000/1001 is not 29.97 exactly.
public struct VideoFormat: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Frames per second, numerator.
    public var frameRateNumerator: Int
    /// Frames per second, denominator.
    public var frameRateDenominator: Int

    /// A format of `width`x`height` at `frameRate` frames per second (a whole number).
    public init(width: Int, height: Int, frameRate: Int = 30) {
        self.init(width: width, height: height, frameRateNumerator: frameRate, frameRateDenominator: 1)
    }

    /// A format with a fractional frame rate.
    public init(width: Int, height: Int, frameRateNumerator: Int, frameRateDenominator: Int) {
        self.width = width
        self.height = height
        self.frameRateNumerator = frameRateNumerator
        self.frameRateDenominator = max(frameRateDenominator, 1)
    }

    /// Frames per second as a number.
    public var frameRate: Double { Double(frameRateNumerator) / Double(frameRateDenominator) }

    /// Nanoseconds between frames.
    public var frameIntervalNanoseconds: UInt64 {
        frameRateNumerator > 0 ? UInt64(1_000_000_000 * frameRateDenominator / frameRateNumerator) : 0
    }

    /// Throws `invalidArgument` unless the size is positive and even and the rate positive.
    public func validate() throws(MediaError) {
        guard width > 0, height > 0, width <= 7680, height <= 4320 else {
            throw MediaError(.invalidArgument, "video size \(width)x\(height) is out of range (1x1 to 7680x4320)")
        }
        guard width % 2 == 0, height % 2 == 0 else {
            throw MediaError(.invalidArgument, "video size \(width)x\(height) must be even in both dimensions (I420)")
        }
        guard frameRateNumerator > 0, frameRate <= 240 else {
            throw MediaError(.invalidArgument, "frame rate \(frameRateNumerator)/\(frameRateDenominator) is out of range (0 to 240 fps)")
        }
    }

    /// "640x480@30" (or "@29.97").
    public var description: String {
        let rate = frameRateDenominator == 1 ? "\(frameRateNumerator)" : String(format2: frameRate)
        return "\(width)x\(height)@\(rate)"
    }
}

extension String {
    /// Two decimals without Foundation's formatter.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
