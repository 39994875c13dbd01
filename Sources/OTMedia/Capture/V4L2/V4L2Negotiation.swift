import Glibc

/// Picks the device format, size and frame interval closest to what the caller asked.
///
/// Rules, in order (lexicographic, so the result is predictable):
/// 1. only formats the engine converts, and only those in `preferred`;
/// 2. the size nearest the requested one (an exact size wins; otherwise the smallest
///    difference in area plus aspect ratio, both on a log scale);
/// 3. the rate nearest the requested one, a shortfall weighing far more than an excess
///    (a webcam's 1280x720 YUYV at 10 fps loses to its MJPEG at 30 fps);
/// 4. the earlier format in `preferred`.
/// Pure logic over `V4L2FormatInfo`, so it is tested without a camera.
enum V4L2Negotiation {
    /// The outcome: what to ask the driver for with VIDIOC_S_FMT / VIDIOC_S_PARM.
    struct Choice: Equatable {
        var pixelFormat: PixelFormat
        /// The device's own code (MJPEG may be `MJPG` or `JPEG`).
        var fourcc: UInt32
        var width: Int
        var height: Int
        /// Nil when the driver lists no intervals for this size.
        var interval: V4L2FrameInterval?
    }

    /// The best choice, or nil when no format in `formats` is both convertible and preferred.
    static func choose(formats: [V4L2FormatInfo], requested: VideoFormat, preferred: [PixelFormat]) -> Choice? {
        var best: (choice: Choice, cost: (Double, Double, Int))?
        for format in formats {
            guard let pixelFormat = format.pixelFormat, let rank = preferred.firstIndex(of: pixelFormat) else { continue }
            let code = code(format.fourcc)
            for candidate in candidates(format.frameSizes, requested: requested) {
                let interval = candidate.intervals?.nearest(framesPerSecond: requested.frameRate)
                let choice = Choice(pixelFormat: pixelFormat, fourcc: code, width: candidate.width,
                                    height: candidate.height, interval: interval)
                let cost = (sizeCost(candidate.width, candidate.height, requested),
                            rateCost(interval, requested), rank)
                if best == nil || isLess(cost, best!.cost) { best = (choice, cost) }
            }
        }
        return best?.choice
    }

    /// The sizes worth considering in one format: every discrete size, or the nearest in
    /// a range. A driver that lists no sizes gets the requested size (S_FMT will adjust).
    private static func candidates(_ sizes: V4L2FrameSizes, requested: VideoFormat)
        -> [(width: Int, height: Int, intervals: V4L2FrameIntervals?)] {
        switch sizes {
        case .discrete(let list) where list.isEmpty:
            return [(requested.width, requested.height, nil)]
        case .discrete(let list):
            return list.map { ($0.width, $0.height, $0.intervals) }
        case .stepwise(let range):
            let size = range.nearest(width: requested.width, height: requested.height)
            return [(size.width, size.height, range.intervals)]
        }
    }

    private static func sizeCost(_ width: Int, _ height: Int, _ requested: VideoFormat) -> Double {
        if width == requested.width && height == requested.height { return 0 }
        let area = Double(width * height) / Double(max(requested.width * requested.height, 1))
        let aspect = (Double(width) / Double(max(height, 1))) / (Double(requested.width) / Double(max(requested.height, 1)))
        // Never 0 for an inexact size, so an exact size always wins.
        return abs(log(area)) + abs(log(aspect)) + 1e-9
    }

    private static func rateCost(_ interval: V4L2FrameInterval?, _ requested: VideoFormat) -> Double {
        guard let interval, requested.frameRate > 0 else { return 0 }
        let rate = interval.framesPerSecond
        let shortfall = max(0, requested.frameRate - rate) / requested.frameRate
        let excess = max(0, rate - requested.frameRate) / requested.frameRate
        return shortfall + excess * 0.01
    }

    private static func isLess(_ a: (Double, Double, Int), _ b: (Double, Double, Int)) -> Bool {
        let epsilon = 1e-12
        if abs(a.0 - b.0) > epsilon { return a.0 < b.0 }
        if abs(a.1 - b.1) > epsilon { return a.1 < b.1 }
        return a.2 < b.2
    }
}

extension V4L2Negotiation {
    /// `fourCharacterCode` for a runtime string (device info carries fourccs as text).
    static func code(_ text: String) -> UInt32 {
        var value: UInt32 = 0
        for (index, byte) in text.utf8.prefix(4).enumerated() { value |= UInt32(byte) << UInt32(8 * index) }
        return value
    }
}
