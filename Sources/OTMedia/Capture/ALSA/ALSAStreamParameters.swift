/// What an ALSA device agreed to when it was opened: the numbers the hardware (or the
/// plug layer) actually runs at. Cost: a value type of four integers.
public struct ALSAStreamParameters: Sendable, Equatable, CustomStringConvertible {
    /// Samples per second per channel (always 48 000: other rates fail to open).
    public var sampleRate: Int
    /// Interleaved channels (1 or 2).
    public var channels: Int
    /// Frames per period: how often the device wakes the reader or writer (480 = 10 ms).
    public var periodFrames: Int
    /// Frames the device buffers in all (a few periods).
    public var bufferFrames: Int

    /// Creates a parameter set.
    public init(sampleRate: Int, channels: Int, periodFrames: Int, bufferFrames: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    /// "48000 Hz, 1 ch, period 480, buffer 3840".
    public var description: String {
        "\(sampleRate) Hz, \(channels) ch, period \(periodFrames), buffer \(bufferFrames)"
    }

    /// The device buffer lengths the engine accepts, in 10 ms periods.
    static let periodRange = 2...32

    /// Throws `invalidArgument` unless `periods` is in `periodRange`.
    static func validate(periods: Int) throws(MediaError) {
        guard periodRange.contains(periods) else {
            throw MediaError(.invalidArgument, "\(periods) periods is out of range; use \(periodRange.lowerBound) to \(periodRange.upperBound)")
        }
    }
}
