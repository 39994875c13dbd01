/// How a `VP8Encoder` encodes: size, rate, speed and temporal layering.
///
/// The defaults mirror WebRTC's realtime VP8 encoder (CBR, fixed speed -6, one thread,
/// error resilient, a keyframe at least every 3000 frames). Cost: a plain value.
public struct VP8EncoderSettings: Sendable, Equatable {
    /// Picture width in pixels (1...16383).
    public var width: Int
    /// Picture height in pixels (1...16383).
    public var height: Int
    /// Frames per second the source delivers (e.g. 30); sets the nominal frame duration.
    public var frameRate: Double
    /// Target bitrate in kbit/s (constant bitrate rate control).
    public var bitrateKbps: Int
    /// libvpx speed: negative = fixed speed -N (WebRTC uses -6 on x86); positive = libvpx's
    /// CPU-budget mode. -16...16.
    public var cpuUsed: Int = -6
    /// Encoder threads (WebRTC uses 1 at VGA or on machines with fewer than 3 cores).
    public var threads: Int = 1
    /// Error-resilient mode: each frame resets the entropy context, so a receiver that
    /// loses a frame (or drops a temporal layer) can keep decoding.
    public var errorResilient: Bool = true
    /// The longest run of frames without a keyframe.
    public var maxKeyframeInterval: Int = 3000
    /// Temporal layers, 1...3: 1 = none, 2 = TIDs 0,1,0,1…, 3 = TIDs 0,2,1,2….
    public var temporalLayers: Int = 1

    /// Settings for a `width`x`height` stream at `frameRate` fps and `bitrateKbps`.
    public init(width: Int, height: Int, frameRate: Double = 30, bitrateKbps: Int = 500) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrateKbps = bitrateKbps
    }

    /// Throws `MediaError.invalidArgument` naming the first field out of range.
    public func validate() throws(MediaError) {
        guard (1...16383).contains(width), (1...16383).contains(height) else {
            throw MediaError(.invalidArgument, "VP8 size \(width)x\(height) is out of range; use 1...16383 on each side")
        }
        guard frameRate.isFinite, frameRate > 0, frameRate <= 240 else {
            throw MediaError(.invalidArgument, "frame rate \(frameRate) is out of range; use more than 0 and at most 240 fps")
        }
        guard (1...100_000).contains(bitrateKbps) else {
            throw MediaError(.invalidArgument, "bitrate \(bitrateKbps) kbps is out of range; use 1...100000")
        }
        guard (-16...16).contains(cpuUsed) else {
            throw MediaError(.invalidArgument, "cpuUsed \(cpuUsed) is out of range; use -16...16")
        }
        guard (1...64).contains(threads) else {
            throw MediaError(.invalidArgument, "\(threads) encoder threads is out of range; use 1...64")
        }
        guard maxKeyframeInterval >= 1 else {
            throw MediaError(.invalidArgument, "keyframe interval \(maxKeyframeInterval) must be at least 1 frame")
        }
        guard (1...3).contains(temporalLayers) else {
            throw MediaError(.invalidArgument, "\(temporalLayers) temporal layers is not supported; use 1, 2 or 3")
        }
    }
}
