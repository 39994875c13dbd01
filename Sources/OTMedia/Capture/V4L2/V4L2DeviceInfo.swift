/// A V4L2 video capture device as `V4L2Camera.devices()` found it: identity, and every
/// pixel format with its frame sizes and frame intervals. A plain value; cost: the arrays.
public struct V4L2DeviceInfo: Sendable, Hashable {
    /// The device node, e.g. "/dev/video0".
    public var path: String
    /// The card name (`v4l2_capability.card`), e.g. "HD Pro Webcam C920" or "vivid".
    public var card: String
    /// The kernel driver (`uvcvideo`, `vivid`, …).
    public var driver: String
    /// Where the device sits (`usb-0000:00:14.0-1`, `platform:vivid-000`): stable across
    /// reboots, unlike the node number.
    public var busInfo: String
    /// Every pixel format the device offers, in the driver's order (including ones the
    /// engine cannot convert: see `V4L2FormatInfo.pixelFormat`).
    public var formats: [V4L2FormatInfo]

    /// Creates a description (devices() fills these in; tests can build their own).
    public init(path: String, card: String, driver: String, busInfo: String, formats: [V4L2FormatInfo]) {
        self.path = path
        self.card = card
        self.driver = driver
        self.busInfo = busInfo
        self.formats = formats
    }
}

/// One pixel format of a device (`VIDIOC_ENUM_FMT`) and the sizes it comes in.
public struct V4L2FormatInfo: Sendable, Hashable {
    /// The V4L2 four-character code, e.g. "YUYV", "MJPG".
    public var fourcc: String
    /// The engine's name for it, or nil when the engine cannot convert this format.
    public var pixelFormat: PixelFormat?
    /// The driver's description, e.g. "YUYV 4:2:2".
    public var description: String
    /// The sizes (`VIDIOC_ENUM_FRAMESIZES`).
    public var frameSizes: V4L2FrameSizes

    /// Creates a format description.
    public init(fourcc: String, pixelFormat: PixelFormat?, description: String, frameSizes: V4L2FrameSizes) {
        self.fourcc = fourcc
        self.pixelFormat = pixelFormat
        self.description = description
        self.frameSizes = frameSizes
    }
}

/// The frame sizes of one format: a list, or a range.
public enum V4L2FrameSizes: Sendable, Hashable {
    /// A fixed list of sizes, each with its own frame intervals (most webcams).
    case discrete([V4L2FrameSize])
    /// Any size in a range, in steps (a continuous range has steps of 1). Intervals are
    /// those the driver gives at the largest size.
    case stepwise(V4L2FrameSizeRange)
}

/// One discrete frame size and the frame intervals it allows.
public struct V4L2FrameSize: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The frame intervals at this size (`VIDIOC_ENUM_FRAMEINTERVALS`).
    public var intervals: V4L2FrameIntervals

    /// Creates a size with its intervals.
    public init(width: Int, height: Int, intervals: V4L2FrameIntervals) {
        self.width = width
        self.height = height
        self.intervals = intervals
    }
}

/// A range of frame sizes (`V4L2_FRMSIZE_TYPE_STEPWISE` or `_CONTINUOUS`).
public struct V4L2FrameSizeRange: Sendable, Hashable {
    /// Smallest width.
    public var minWidth: Int
    /// Largest width.
    public var maxWidth: Int
    /// Width step (1 when continuous).
    public var stepWidth: Int
    /// Smallest height.
    public var minHeight: Int
    /// Largest height.
    public var maxHeight: Int
    /// Height step (1 when continuous).
    public var stepHeight: Int
    /// Frame intervals at the largest size.
    public var intervals: V4L2FrameIntervals

    /// Creates a range.
    public init(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int,
                intervals: V4L2FrameIntervals) {
        self.minWidth = minWidth
        self.maxWidth = maxWidth
        self.stepWidth = max(stepWidth, 1)
        self.minHeight = minHeight
        self.maxHeight = maxHeight
        self.stepHeight = max(stepHeight, 1)
        self.intervals = intervals
    }

    /// The size in range nearest to `width`x`height` (clamped, then snapped to the steps).
    public func nearest(width: Int, height: Int) -> (width: Int, height: Int) {
        func snap(_ value: Int, _ low: Int, _ high: Int, _ step: Int) -> Int {
            let clamped = min(max(value, low), high)
            let steps = (clamped - low + step / 2) / step
            return min(low + steps * step, high)
        }
        return (snap(width, minWidth, maxWidth, stepWidth), snap(height, minHeight, maxHeight, stepHeight))
    }
}

/// The frame intervals of one size: a list, or a range. Empty when the driver does not say.
public enum V4L2FrameIntervals: Sendable, Hashable {
    /// A fixed list of intervals.
    case discrete([V4L2FrameInterval])
    /// Any interval from `minimum` (fastest) to `maximum` (slowest) in `step`s.
    case stepwise(minimum: V4L2FrameInterval, maximum: V4L2FrameInterval, step: V4L2FrameInterval)

    /// The interval nearest to `framesPerSecond` (rate distance; ties go to the faster).
    /// Nil when there are none. For a range, the requested rate clamped to the range.
    public func nearest(framesPerSecond: Double) -> V4L2FrameInterval? {
        switch self {
        case .discrete(let list):
            return list.min { a, b in
                let da = abs(a.framesPerSecond - framesPerSecond), db = abs(b.framesPerSecond - framesPerSecond)
                return da != db ? da < db : a.framesPerSecond > b.framesPerSecond
            }
        case .stepwise(let minimum, let maximum, _):
            let fastest = minimum.framesPerSecond, slowest = maximum.framesPerSecond
            if framesPerSecond >= fastest { return minimum }
            if framesPerSecond <= slowest { return maximum }
            return V4L2FrameInterval(rate: framesPerSecond)
        }
    }
}

/// The time between frames as a fraction of a second (`numerator / denominator` s):
/// 1/30 is 30 fps. V4L2 speaks intervals; `VideoFormat` speaks rates (the inverse).
public struct V4L2FrameInterval: Sendable, Hashable, CustomStringConvertible {
    /// Seconds, numerator.
    public var numerator: Int
    /// Seconds, denominator.
    public var denominator: Int

    /// An interval of `numerator/denominator` seconds.
    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The interval for a rate in frames per second (whole rates exactly; others to 1/1000).
    public init(rate framesPerSecond: Double) {
        let whole = framesPerSecond.rounded()
        if abs(whole - framesPerSecond) < 1e-9, whole >= 1 {
            self.init(numerator: 1, denominator: Int(whole))
        } else {
            self.init(numerator: 1000, denominator: Int((framesPerSecond * 1000).rounded()))
        }
    }

    /// Frames per second (`denominator / numerator`); 0 for a zero interval.
    public var framesPerSecond: Double { numerator > 0 ? Double(denominator) / Double(numerator) : 0 }

    /// "1/30".
    public var description: String { "\(numerator)/\(denominator)" }
}
