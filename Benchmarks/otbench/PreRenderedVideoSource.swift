import OTMedia
import Synchronization

/// A `VideoSource` that hands out frames rendered into memory before the run, as fast as
/// they are asked for (unpaced), so a publisher pipeline's CPU can be measured without a
/// camera or a renderer in the way.
///
/// Frame i (0-based) is `frames[i % frames.count]` stamped with i / 30 s (33.3 ms apart,
/// exactly what the bare loop passes), so RTP timestamps and libvpx's rate control see
/// 30 fps. After `count` frames it has nothing more (nil after a 5 ms nap).
///
/// `onMark` is called on the capture thread when the reader asks for frame i for every i
/// in `marks` (before i is handed out, so frames 0..<i have been encoded and sent: the
/// pipeline's loop is strictly source → encode → send → source), and for i = `count`.
/// The reused frames are shared with the bare loop: run one side at a time.
final class PreRenderedVideoSource: VideoSource, Sendable {
    let format: VideoFormat
    private let frames: [VideoFrame]
    private let count: Int
    private let marks: [Int]
    private let onMark: @Sendable (Int) -> Void
    private let next = Atomic<Int>(0)

    init(frames: [VideoFrame], count: Int, marks: [Int], onMark: @escaping @Sendable (Int) -> Void) {
        precondition(!frames.isEmpty, "no frames")
        format = VideoFormat(width: frames[0].width, height: frames[0].height, frameRate: 30)
        self.frames = frames
        self.count = count
        self.marks = marks
        self.onMark = onMark
    }

    /// The timestamp of frame `index`: index / 30 s, rounded to the nanosecond.
    static func timestamp(ofFrame index: Int) -> UInt64 {
        UInt64((Double(index) * 1e9 / 30).rounded())
    }

    func start() throws(MediaError) {}

    func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        let index = next.load(ordering: .relaxed)
        if marks.contains(index) { onMark(index) }
        guard index < count else {
            if index == count {
                next.store(count + 1, ordering: .relaxed)
                onMark(count)
            }
            sleepMilliseconds(min(max(timeoutMilliseconds, 0), 5))
            return nil
        }
        next.store(index + 1, ordering: .relaxed)
        let frame = frames[index % frames.count]
        frame.timestampNanoseconds = Self.timestamp(ofFrame: index)
        frame.sequence = UInt64(index)
        return frame
    }

    func stop() {}

    var statistics: CaptureStatistics {
        var statistics = CaptureStatistics()
        statistics.framesDelivered = UInt64(min(next.load(ordering: .relaxed), count))
        return statistics
    }
}
