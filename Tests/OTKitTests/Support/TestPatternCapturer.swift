import Foundation
import OTMedia
import Synchronization
@testable import OTKit

/// A custom capturer (OTVideoCapture) that feeds a TestPatternSource's frames, with
/// their stamped numbers, to the publisher's consumer from its own thread.
final class TestPatternCapturer: OTVideoCapture, @unchecked Sendable {
    var videoCaptureConsumer: OTVideoCaptureConsumer?
    let format: VideoFormat
    private let running = Atomic<Bool>(false)
    private var thread: Thread?
    let framesPushed = Atomic<Int>(0)

    init(width: Int = 320, height: Int = 240, fps: Int = 30) {
        format = VideoFormat(width: width, height: height, frameRate: fps)
    }

    func initCapture() {}
    func releaseCapture() {}

    func startCapture() -> Int32 {
        guard let source = try? TestPatternSource(format: format), (try? source.start()) != nil else { return -1 }
        running.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            while running.load(ordering: .relaxed) {
                guard let frame = try? source.nextFrame(timeoutMilliseconds: 100) else { continue }
                videoCaptureConsumer?.consumeFrame(OTVideoFrame(wrapping: frame))
                framesPushed.add(1, ordering: .relaxed)
            }
            source.stop()
        }
        self.thread = thread
        thread.start()
        return 0
    }

    func stopCapture() -> Int32 {
        running.store(false, ordering: .relaxed)
        return 0
    }

    func isCaptureStarted() -> Bool { running.load(ordering: .relaxed) }

    func captureSettings(_ videoFormat: inout OTVideoFormat) -> Int32 {
        videoFormat = OTVideoFormat.i420(width: format.width, height: format.height)
        videoFormat.estimatedFramesPerSecond = format.frameRate
        return 0
    }
}

/// An OTVideoRender that reads the stamped frame numbers.
final class FrameNumberRender: OTVideoRender, @unchecked Sendable {
    private let lock = NSLock()
    private var numbers: [UInt32] = []
    var seen: [UInt32] { lock.withLock { numbers } }
    func renderVideoFrame(_ frame: OTVideoFrame) {
        guard let number = FrameNumberStamp.read(from: frame.videoFrame) else { return }
        lock.withLock { numbers.append(number) }
    }
}
