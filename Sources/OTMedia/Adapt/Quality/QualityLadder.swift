import Glibc

/// One step of the publisher's quality ladder: a capture size, a frame rate and the encoder
/// bitrate range that size and rate need.
///
/// The range comes from bits per pixel per frame (`QualityLadder.Configuration`):
/// `minBitrate` is the lowest rate at which the rung still looks acceptable, `maxBitrate` the
/// rate above which more bits buy little. A plain value; costs nothing to copy.
public struct QualityRung: Sendable, Equatable, CustomStringConvertible {
    /// Encoded width in pixels (even, so the I420 chroma planes divide exactly).
    public var width: Int
    /// Encoded height in pixels (even).
    public var height: Int
    /// Frames per second (30, 15, 7.5, or the camera's own rate when that is lower).
    public var frameRate: Double
    /// Bits per second below which this rung is starved and the controller steps down.
    public var minBitrate: Int
    /// Bits per second above which this rung gains little; the encoder is never given more.
    public var maxBitrate: Int

    /// A rung with the given size, rate and bitrate range.
    public init(width: Int, height: Int, frameRate: Double, minBitrate: Int, maxBitrate: Int) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.minBitrate = minBitrate
        self.maxBitrate = maxBitrate
    }

    /// `WxH@fps`, e.g. `640x360@15`.
    public var description: String {
        let rate = frameRate == frameRate.rounded() ? String(Int(frameRate)) : String(frameRate)
        return "\(width)x\(height)@\(rate)"
    }
}

/// The publisher's ordered list of rungs from the camera's ceiling (`cameraResolution` and
/// `cameraFrameRate`) down to the smallest, cheapest picture.
///
/// Built once per ceiling (one small array allocation); afterwards only read.
///
/// **Rungs.** Heights come from `Configuration.ladderHeights` (720, 540, 360, 180: 1280x720 →
/// 960x540 → 640x360 → 320x180 for 16:9). The ceiling itself is always the top rung; below it
/// only heights strictly below the ceiling's are used, widths keep the ceiling's aspect ratio
/// (640x480 → 480x360 → 240x180), and a height closer than `minimumStep` to the rung above is
/// skipped (a 5 % smaller picture is not worth a resize). Frame rates are the ceiling's rate
/// and then the rates of `Configuration.frameRates` (30 → 15 → 7.5) below it.
///
/// **Policy: resolution first down to the pivot (640x360), then frame rate, then the last
/// resolutions at the lowest rate.** For a 1280x720@30 ceiling:
/// `1280x720@30 → 960x540@30 → 640x360@30 → 640x360@15 → 640x360@7.5 → 320x180@7.5`.
/// Why: OpenTok's camera publishers show people talking, mostly in tiles smaller than the
/// capture; the detail lost from 720p to 360p is hardly visible in such a tile, while 15 fps
/// makes lips and hands visibly jerky. Below 360p a face loses legibility faster than motion
/// loses smoothness, so there the frame rate goes first; 180p is the last resort, kept at the
/// lowest rate because at that point bits per frame matter more than frames.
/// `Configuration.pivotHeight` moves the pivot; 0 means all resolutions first.
public struct QualityLadder: Sendable, Equatable {
    /// How the ladder is derived: step lists, the pivot and the bits-per-pixel figures.
    public struct Configuration: Sendable, Equatable {
        /// Candidate heights below the ceiling, highest first (16:9: 720p, 540p, 360p, 180p).
        public var ladderHeights: [Int] = [720, 540, 360, 180]
        /// Candidate frame rates below the ceiling's, highest first (issue 5: 30 → 15 → 7.5).
        public var frameRates: [Double] = [30, 15, 7.5]
        /// Rungs at or below this height drop frame rate before resolution (see the policy).
        public var pivotHeight: Int = 360
        /// A candidate height must be at most this fraction of the rung above it to be used.
        public var minimumStep: Double = 0.9
        /// Bits per pixel per frame at a rung's floor. 0.02 is where libvpx VP8 realtime
        /// (cpu-used -6, WebRTC's settings) measured 34.5 dB Y-PSNR on camera-like content:
        /// 1280x720@30 at 500 kbps = 0.018 bpp (reference/performance.md §1). Below that the
        /// picture smears, so a smaller rung looks better.
        public var floorBitsPerPixel: Double = 0.02
        /// Bits per pixel per frame at a rung's top. 0.06 is where the same measurements
        /// flatten out: 1280x720@30 at 1.5 Mbps (0.054 bpp) gave 37.9 dB and 640x480@30 at
        /// 1.5 Mbps (0.163 bpp) only 38.9 dB (reference/performance.md §1).
        public var maxBitsPerPixel: Double = 0.06
        /// Lower frame rates need more bits per frame (frames further apart predict less from
        /// each other, and per-frame overhead is spread over fewer frames). The bpp figures
        /// are multiplied by `(referenceFrameRate / rate) ^ lowRateExponent`: ×1.41 at 15 fps,
        /// ×2 at 7.5 fps. This is a judgement, not a measurement (the performance anchors are
        /// all at 30 fps); it keeps each rung's floor strictly below the one above it.
        public var lowRateExponent: Double = 0.5
        /// The frame rate the bits-per-pixel figures were measured at (30 fps).
        public var referenceFrameRate: Double = 30

        /// The defaults documented on each property.
        public init() {}
    }

    /// The rungs, index 0 the ceiling, each next one cheaper (its `minBitrate` strictly lower).
    public let rungs: [QualityRung]
    /// The configuration the rungs were derived from.
    public let configuration: Configuration

    /// Derives the rungs for a camera ceiling. Sizes are clamped to at least 2x2, the frame
    /// rate to at least 1 fps. Cost: a few dozen arithmetic operations, one array.
    public init(ceilingWidth: Int, ceilingHeight: Int, ceilingFrameRate: Double,
                configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let width = max(2, ceilingWidth), height = max(2, ceilingHeight)
        let topRate = max(1, ceilingFrameRate)
        let aspect = Double(width) / Double(height)

        var sizes: [(width: Int, height: Int)] = [(width, height)]
        for candidate in configuration.ladderHeights where candidate < height && candidate >= 2 {
            let above = sizes[sizes.count - 1].height
            guard Double(candidate) <= configuration.minimumStep * Double(above) else { continue }
            let w = max(2, Int((Double(candidate) * aspect / 2).rounded()) * 2)
            sizes.append((w, candidate & ~1))
        }
        var rates: [Double] = [topRate]
        for rate in configuration.frameRates where rate < topRate && rate > 0 { rates.append(rate) }

        // The first size at or below the pivot takes every frame rate; the sizes above it
        // keep the top rate and the sizes below it run at the lowest rate.
        let pivot = sizes.firstIndex { $0.height <= configuration.pivotHeight } ?? (sizes.count - 1)
        var plan: [(width: Int, height: Int, rate: Double)] = []
        for (index, size) in sizes.enumerated() {
            if index < pivot {
                plan.append((size.width, size.height, rates[0]))
            } else if index == pivot {
                for rate in rates { plan.append((size.width, size.height, rate)) }
            } else {
                plan.append((size.width, size.height, rates[rates.count - 1]))
            }
        }
        rungs = plan.map { step in
            let pixelRate = Double(step.width * step.height) * step.rate
            let boost = Glibc.pow(configuration.referenceFrameRate / step.rate, configuration.lowRateExponent)
            return QualityRung(width: step.width, height: step.height, frameRate: step.rate,
                               minBitrate: Int((pixelRate * configuration.floorBitsPerPixel * boost).rounded()),
                               maxBitrate: Int((pixelRate * configuration.maxBitsPerPixel * boost).rounded()))
        }
    }

    /// The index of the highest rung whose floor `bitrate` meets, or the last rung when none
    /// does. Cost: one pass over the rungs.
    public func highestRung(fitting bitrate: Int) -> Int {
        rungs.firstIndex { bitrate >= $0.minBitrate } ?? (rungs.count - 1)
    }
}
