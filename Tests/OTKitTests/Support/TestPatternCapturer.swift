import Foundation
import OTMedia
import Synchronization
@testable import OTKit

/// The tests' name for OTKit's own synthetic capturer.
typealias TestPatternCapturer = OTTestPatternCapture

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
