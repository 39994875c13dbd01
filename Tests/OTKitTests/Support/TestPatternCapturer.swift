import Foundation
import OTMedia
import Synchronization
@testable import OTKit

/// The tests' name for OTKit's own synthetic capturer.
typealias TestPatternCapturer = OTTestPatternCapture

/// An OTVideoRender that reads the stamped frame numbers (and keeps each decoded
/// frame's size and arrival time, for the adaptation tests).
final class FrameNumberRender: OTVideoRender, @unchecked Sendable {
    /// One decoded frame: its stamped number, its decoded size, when it was rendered.
    struct Rendered: Sendable {
        let number: UInt32
        let width: Int
        let height: Int
        let at: Date
    }

    private let lock = NSLock()
    private var numbers: [UInt32] = []
    private var frames: [Rendered] = []
    private var unreadable = 0
    var seen: [UInt32] { lock.withLock { numbers } }
    /// Every frame whose stamp read, in render order.
    var rendered: [Rendered] { lock.withLock { frames } }
    /// Frames rendered whose stamp did not read (damaged or missing).
    var unreadableFrames: Int { lock.withLock { unreadable } }
    /// Frames rendered at or after `date`.
    func rendered(since date: Date) -> [Rendered] { lock.withLock { frames.filter { $0.at >= date } } }

    func renderVideoFrame(_ frame: OTVideoFrame) {
        let picture = frame.videoFrame
        guard let number = FrameNumberStamp.read(from: picture) else {
            lock.withLock { unreadable += 1 }
            return
        }
        let entry = Rendered(number: number, width: picture.width, height: picture.height, at: Date())
        lock.withLock {
            numbers.append(number)
            frames.append(entry)
        }
    }
}
