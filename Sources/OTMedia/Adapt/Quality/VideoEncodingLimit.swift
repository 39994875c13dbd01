/// An upper bound on video size and frame rate. The publisher's encoding limit, set at run
/// time from outside the pipeline (OpenTok relayed sessions: the `encodingPreferences` the
/// server relays, i.e. the most any subscriber wants), and a subscriber's preferences at
/// the router (`LayerPreferences`). It lowers the ceiling that `cameraResolution` and
/// `cameraFrameRate` set; it never raises it. Nil fields do not limit.
///
/// A plain value; `fit` is arithmetic only.
public struct VideoEncodingLimit: Sendable, Equatable {
    /// Widest picture to encode, pixels (nil: no limit).
    public var maxWidth: Int?
    /// Tallest picture to encode, pixels (nil: no limit).
    public var maxHeight: Int?
    /// Most frames per second to encode (nil: no limit).
    public var maxFrameRate: Double?

    /// A limit with the given bounds (all nil: no limit).
    public init(maxWidth: Int? = nil, maxHeight: Int? = nil, maxFrameRate: Double? = nil) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxFrameRate = maxFrameRate
    }

    /// No limit.
    public static let none = VideoEncodingLimit()

    /// Whether a `width`x`height` picture is within the size bounds.
    public func admits(width: Int, height: Int) -> Bool {
        width <= (maxWidth ?? Int.max) && height <= (maxHeight ?? Int.max)
    }

    /// The largest size within the bounds with the aspect ratio of `width`x`height` (never
    /// larger than it; even sides, at least 2x2), and the lower of `frameRate` and the
    /// frame-rate bound. Bounds below 2 pixels or 1 fps count as 2 pixels and 1 fps.
    public func fit(width: Int, height: Int, frameRate: Double) -> (width: Int, height: Int, frameRate: Double) {
        var scale = 1.0
        if let maxWidth { scale = min(scale, Double(max(2, maxWidth)) / Double(width)) }
        if let maxHeight { scale = min(scale, Double(max(2, maxHeight)) / Double(height)) }
        var w = width, h = height
        if scale < 1 {
            w = max(2, Int(Double(width) * scale) & ~1)
            h = max(2, Int(Double(height) * scale) & ~1)
        }
        let rate = maxFrameRate.map { min(frameRate, max(1, $0)) } ?? frameRate
        return (w, h, rate)
    }
}

/// What one video encoding of the publisher produces right now, for stats and tests:
/// the encoding's SSRC, size, frame rate and encoder bitrate, and whether it runs.
///
/// A plain value, published by the video thread when a decision changes it.
public struct VideoEncodingState: Sendable, Equatable {
    /// The RTP SSRC this encoding is sent on.
    public var ssrc: UInt32
    /// Encoded width, pixels.
    public var width: Int
    /// Encoded height, pixels.
    public var height: Int
    /// Frames per second encoded (captured frames are dropped evenly to reach it).
    public var frameRate: Double
    /// The encoder's target bitrate, bits per second.
    public var bitrate: Int
    /// False while this encoding is switched off (simulcast: the target cannot carry it;
    /// audio fallback: all video is off; or an encoding limit excludes its size).
    public var isActive: Bool
    /// The rung of this encoding's quality ladder in use (0: its ceiling).
    public var rungIndex: Int

    /// A state with every field given.
    public init(ssrc: UInt32, width: Int, height: Int, frameRate: Double, bitrate: Int, isActive: Bool, rungIndex: Int) {
        self.ssrc = ssrc
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
        self.isActive = isActive
        self.rungIndex = rungIndex
    }
}
