import Foundation
import OTMedia

/// The exchange between a custom `OTAudioDevice` and the SDK (`OTAudioBus`).
///
/// Capture: `writeCaptureData` appends to a ring of about one second; the publisher's
/// audio thread takes whole engine frames from it (oldest samples are overwritten if
/// nobody reads). Render: each subscriber mixes its decoded audio into a render ring
/// at its own write position (saturating adds), and `readRenderData` takes the mix and
/// clears what it read, so several subscribers are heard together. Cost: one lock and
/// a copy of the samples per call; no allocation after init.
public final class OTAudioBus: @unchecked Sendable {
    private let lock = NSCondition()
    private var capture: [Int16]
    private var captureRead = 0
    private var captureCount = 0
    private var render: [Int16]
    private var renderRead = 0
    private var sinkPositions: [ObjectIdentifier: Int] = [:]

    /// A bus with rings for `capacitySamples` interleaved samples each (default one
    /// second of stereo at 48 kHz).
    public init(capacitySamples: Int = 96_000) {
        capture = Array(repeating: 0, count: capacitySamples)
        render = Array(repeating: 0, count: capacitySamples)
    }

    /// Pushes captured samples (interleaved, `captureFormat`); `numberOfSamples` counts
    /// samples per channel times channels, i.e. Int16 values.
    public func writeCaptureData(_ data: UnsafePointer<Int16>, numberOfSamples: Int) {
        lock.lock()
        defer { lock.unlock() }
        let size = capture.count
        for i in 0..<numberOfSamples {
            capture[(captureRead + captureCount) % size] = data[i]
            if captureCount == size { captureRead = (captureRead + 1) % size } else { captureCount += 1 }
        }
        lock.signal()
    }

    /// Pulls up to `numberOfSamples` Int16 values of mixed subscriber audio (silence
    /// where nothing was written); returns how many were written (always all of them).
    @discardableResult
    public func readRenderData(_ data: UnsafeMutablePointer<Int16>, numberOfSamples: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let size = render.count
        for i in 0..<numberOfSamples {
            let index = (renderRead + i) % size
            data[i] = render[index]
            render[index] = 0
        }
        renderRead = (renderRead + numberOfSamples) % size
        return numberOfSamples
    }

    /// Takes exactly `count` captured values into `into`, waiting up to `timeoutMilliseconds`.
    func takeCapture(into: UnsafeMutablePointer<Int16>, count: Int, timeoutMilliseconds: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(Double(timeoutMilliseconds) / 1000)
        while captureCount < count {
            if !lock.wait(until: deadline) { return false }
        }
        let size = capture.count
        for i in 0..<count { into[i] = capture[(captureRead + i) % size] }
        captureRead = (captureRead + count) % size
        captureCount -= count
        return true
    }

    /// Mixes `count` values from a subscriber (`sink`) into the render ring, `delay`
    /// values ahead of the reader when the sink starts or falls behind.
    func mixRender(from samples: UnsafePointer<Int16>, count: Int, sink: ObjectIdentifier, delay: Int) {
        lock.lock()
        defer { lock.unlock() }
        let size = render.count
        var position = sinkPositions[sink] ?? ((renderRead + delay) % size)
        let ahead = (position - renderRead + size) % size
        if ahead > size / 2 { position = (renderRead + delay) % size }  // fell behind the reader
        for i in 0..<count {
            let index = (position + i) % size
            let sum = Int32(render[index]) + Int32(samples[i])
            render[index] = Int16(clamping: sum)
        }
        sinkPositions[sink] = (position + count) % size
    }

    /// Forgets a subscriber's write position.
    func removeRenderer(_ sink: ObjectIdentifier) {
        lock.lock()
        sinkPositions[sink] = nil
        lock.unlock()
    }
}
