import Foundation
import OTMedia
import Synchronization

/// A custom capturer (`OTVideoCapture`) that publishes OTKit's synthetic test pattern:
/// moving colour bars with the frame number stamped into the picture, so whoever
/// decodes the stream can tell which frames arrived (`FrameNumberStamp.read`). For
/// machines without a camera, demos and tests; a real camera is `OTPublisher`.
///
/// Cost: one thread while capturing, rendering one I420 frame per tick into the
/// consumer's pooled frames (no allocation per frame in steady state).
public final class OTTestPatternCapture: OTVideoCapture, @unchecked Sendable {
    /// Where captured frames go; set by the publisher before `startCapture`.
    public var videoCaptureConsumer: OTVideoCaptureConsumer?
    /// The picture size and frame rate produced.
    public let format: VideoFormat
    /// Frames handed to the consumer so far.
    public let framesPushed = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)

    /// A capturer producing `width`×`height` pictures at `fps`.
    public init(width: Int = 640, height: Int = 480, fps: Int = 30) {
        format = VideoFormat(width: width, height: height, frameRate: fps)
    }

    /// Nothing to prepare.
    public func initCapture() {}
    /// Nothing to release.
    public func releaseCapture() {}

    /// Starts the capture thread; -1 if the pattern cannot be made at this size.
    public func startCapture() -> Int32 {
        guard let source = try? TestPatternSource(format: format), (try? source.start()) != nil else { return -1 }
        running.store(true, ordering: .releasing)
        let capture = Thread { [self] in
            var wrapper: OTVideoFrame?  // reused: the consumer keeps the pixels, not the wrapper
            while running.load(ordering: .acquiring) {
                guard let frame = try? source.nextFrame(timeoutMilliseconds: 100) else { continue }
                videoCaptureConsumer?.consumeFrame(OTVideoFrame.wrap(frame, reusing: &wrapper))
                OTVideoFrame.release(&wrapper)
                framesPushed.add(1, ordering: .relaxed)
            }
            source.stop()
        }
        capture.name = "otk-pattern"
        capture.start()
        return 0
    }

    /// Asks the capture thread to stop (it ends by itself within one frame interval).
    public func stopCapture() -> Int32 {
        running.store(false, ordering: .releasing)
        return 0
    }

    /// Whether the capture thread runs.
    public func isCaptureStarted() -> Bool { running.load(ordering: .acquiring) }

    /// I420 at the configured size and rate.
    public func captureSettings(_ videoFormat: inout OTVideoFormat) -> Int32 {
        videoFormat = OTVideoFormat.i420(width: format.width, height: format.height)
        videoFormat.estimatedFramesPerSecond = format.frameRate
        return 0
    }
}
