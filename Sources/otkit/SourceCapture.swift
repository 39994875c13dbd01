import Dispatch
import Foundation
import OTKit
import OTMedia
import Synchronization

/// A publisher's video from an engine `VideoSource` (a V4L2 camera, a Y4M file, the test
/// pattern) as an `OTVideoCapture`, surviving the device going away: when `nextFrame`
/// throws (camera unplugged, driver unloaded), the source is closed, `onEvent` says so,
/// and the capture thread tries to open it again every second; when that works it says
/// so and frames flow again into the same publisher (the stream and its audio never stop).
///
/// It remembers when each frame was handed over, by frame number (`sentTime`), so a
/// receiver in the same process that reads the test pattern's stamp can measure latency.
/// Cost per frame: one wrapper object, a lock in the consumer; no pixel copy.
final class SourceCapture: OTVideoCapture, @unchecked Sendable {
    /// Where frames go; set by the publisher.
    var videoCaptureConsumer: OTVideoCaptureConsumer?
    /// The size and rate announced to the encoder (the first opened source's).
    let format: VideoFormat
    /// What the source is, for messages ("camera /dev/video0").
    let name: String
    /// Frames handed to the publisher so far.
    let framesPushed = Atomic<Int>(0)
    /// Frames of another size than announced (a device that came back different), dropped.
    let framesMisfit = Atomic<Int>(0)
    /// Whether the source is open and delivering.
    let available = Atomic<Bool>(true)
    /// How many times the source was lost.
    let losses = Atomic<Int>(0)
    /// Called from the capture thread: ("camera_lost" | "camera_back", message).
    let onEvent: @Sendable (String, String) -> Void

    private let open: @Sendable () throws(MediaError) -> any VideoSource
    private var source: (any VideoSource)?
    private let running = Atomic<Bool>(false)
    private var finished: DispatchSemaphore?
    private static let ringSize = 4096
    private let sent = UnsafeMutablePointer<UInt64>.allocate(capacity: SourceCapture.ringSize)

    /// Opens the source once (to learn its format); throws what opening threw.
    init(name: String, onEvent: @escaping @Sendable (String, String) -> Void,
         open: @escaping @Sendable () throws(MediaError) -> any VideoSource) throws(MediaError) {
        let first = try open()
        self.name = name
        self.open = open
        self.onEvent = onEvent
        format = first.format
        source = first
        sent.initialize(repeating: 0, count: Self.ringSize)
    }

    deinit { sent.deallocate() }

    /// When frame number `number` was handed over (monotonic ns), 0 if unknown.
    func sentTime(_ number: UInt32) -> UInt64 { sent[Int(number) % Self.ringSize] }

    /// Nothing to prepare.
    func initCapture() {}
    /// Nothing to release (the source stays open for a later publish).
    func releaseCapture() {}

    /// Starts the capture thread.
    func startCapture() -> Int32 {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return 0 }
        let done = DispatchSemaphore(value: 0)
        finished = done
        let thread = Thread { [self] in
            captureLoop()
            done.signal()
        }
        thread.name = "otkit-capture"
        thread.start()
        return 0
    }

    /// Stops the capture thread and waits for it (about one frame interval).
    func stopCapture() -> Int32 {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return 0 }
        finished?.wait()
        finished = nil
        return 0
    }

    /// Whether the capture thread runs.
    func isCaptureStarted() -> Bool { running.load(ordering: .acquiring) }

    /// I420 at the announced size and rate.
    func captureSettings(_ videoFormat: inout OTVideoFormat) -> Int32 {
        videoFormat = OTVideoFormat.i420(width: format.width, height: format.height)
        videoFormat.estimatedFramesPerSecond = format.frameRate
        return 0
    }

    /// Stops and closes the source (at exit).
    func close() {
        _ = stopCapture()
        source?.stop()
        source = nil
    }

    private func captureLoop() {
        var started = false
        while running.load(ordering: .acquiring) {
            guard let current = source else {
                reopen()
                continue
            }
            do throws(MediaError) {
                if !started {
                    try current.start()
                    started = true
                }
                guard let frame = try current.nextFrame(timeoutMilliseconds: 100) else { continue }
                guard frame.width == format.width, frame.height == format.height else {
                    framesMisfit.add(1, ordering: .relaxed)
                    continue
                }
                sent[Int(frame.sequence) % Self.ringSize] = MonotonicClock.nanoseconds()
                videoCaptureConsumer?.consumeFrame(OTVideoFrame(wrapping: frame))
                framesPushed.add(1, ordering: .relaxed)
            } catch {
                current.stop()
                source = nil
                started = false
                available.store(false, ordering: .releasing)
                losses.add(1, ordering: .relaxed)
                onEvent("camera_lost", "\(name) lost (\(error.message)); audio goes on, retrying every second")
            }
        }
        if started { source?.stop() }  // the next startCapture starts it again
    }

    /// One attempt to open the source again, then a second's wait if it failed.
    private func reopen() {
        if let again = try? open() {
            source = again
            available.store(true, ordering: .releasing)
            onEvent("camera_back", "\(name) is back (\(again.format.width)x\(again.format.height)); video resumes")
            return
        }
        for _ in 0..<10 where running.load(ordering: .acquiring) { usleep(100_000) }
    }
}
