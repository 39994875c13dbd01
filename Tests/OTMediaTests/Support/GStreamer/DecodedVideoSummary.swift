import OTMedia

/// What a peer decoded from a stream of OTKit's test pattern, measured from the raw I420
/// frames it wrote: how many frames, which frame numbers (`FrameNumberStamp`), and the
/// luma PSNR of each against the picture it should be (`TestPatternRenderer.render`).
///
/// Used by the interop tests on a GStreamer receiver's output file; `add(_:)` takes frames
/// one at a time. Cost per frame: a stamp read, one render and one PSNR pass.
struct DecodedVideoSummary: CustomStringConvertible {
    /// The frame numbers the sender sent.
    let sentNumbers: Range<UInt32>
    /// Frames decoded (including those whose stamp could not be read).
    private(set) var framesDecoded = 0
    /// Frames whose stamp read as a number in `sentNumbers`.
    private(set) var framesIdentified = 0
    /// Identified frames whose number was not above the previous one (repeats, reordering).
    private(set) var framesOutOfOrder = 0
    /// The distinct frame numbers seen.
    private(set) var numbers = Set<UInt32>()
    private var psnrSum = 0.0
    /// The lowest luma PSNR of an identified frame, in dB (infinity before any).
    private(set) var minimumPSNRY = Double.infinity
    private var previous: UInt32?
    private var reference: VideoFrame?

    /// An empty summary for a stream that carried `sentNumbers`.
    init(sentNumbers: Range<UInt32>) {
        self.sentNumbers = sentNumbers
    }

    /// Reads every frame of a raw I420 file of `width` x `height` (see `I420FileReader`).
    init(i420Path: String, width: Int, height: Int, sentNumbers: Range<UInt32>) throws(MediaError) {
        self.init(sentNumbers: sentNumbers)
        let reader = try I420FileReader(path: i420Path, width: width, height: height)
        let frame = VideoFrame(width: width, height: height)
        while reader.read(into: frame) { add(frame) }
    }

    /// Counts one decoded frame: reads its stamp and, if it names a sent frame, measures
    /// its luma PSNR against that frame redrawn.
    mutating func add(_ frame: VideoFrame) {
        framesDecoded += 1
        guard let number = FrameNumberStamp.read(from: frame), sentNumbers.contains(number) else { return }
        framesIdentified += 1
        if let previous, number <= previous { framesOutOfOrder += 1 }
        previous = number
        numbers.insert(number)
        if reference == nil || reference!.width != frame.width || reference!.height != frame.height {
            reference = VideoFrame(width: frame.width, height: frame.height)
        }
        TestPatternRenderer.render(number, into: reference!)
        let psnr = VideoQuality.psnrY(frame, reference!)
        psnrSum += psnr
        minimumPSNRY = min(minimumPSNRY, psnr)
    }

    /// Distinct sent frame numbers seen.
    var distinctNumbers: Int { numbers.count }

    /// The fraction of `sentNumbers` that was decoded at least once (0...1).
    var fractionPresent: Double {
        sentNumbers.isEmpty ? 0 : Double(numbers.count) / Double(sentNumbers.count)
    }

    /// The mean luma PSNR of the identified frames, in dB (0 when none).
    var meanPSNRY: Double { framesIdentified == 0 ? 0 : psnrSum / Double(framesIdentified) }

    /// One line for test messages.
    var description: String {
        "decoded \(framesDecoded), identified \(framesIdentified), distinct \(distinctNumbers)/\(sentNumbers.count) "
            + "(\(Int((fractionPresent * 100).rounded())) %), out of order \(framesOutOfOrder), "
            + "PSNR-Y mean \(String(format2: meanPSNRY)) dB min \(String(format2: minimumPSNRY)) dB"
    }
}

extension String {
    /// `value` with two decimals, without Foundation.
    init(format2 value: Double) {
        guard value.isFinite else { self = "\(value)"; return }
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let magnitude = abs(hundredths)
        let fraction = magnitude % 100
        self = "\(sign)\(magnitude / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
