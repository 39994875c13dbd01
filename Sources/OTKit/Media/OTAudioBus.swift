import Foundation
import OTMedia

/// The exchange between a custom `OTAudioDevice` and the SDK (`OTAudioBus`).
///
/// Capture: `writeCaptureData` appends to a ring of about one second; each publisher's
/// audio thread reads whole engine frames from it at its own position, so every
/// publisher sends all of the microphone (a reader more than the ring behind skips to
/// the oldest sample kept). Render: each subscriber mixes its decoded audio into a render ring
/// at its own write position (saturating adds), and `readRenderData` takes the mix and
/// clears what it read, so several subscribers are heard together. Cost: one lock and
/// a copy of the samples per call; no allocation after init.
public final class OTAudioBus: @unchecked Sendable {
    private let lock = NSCondition()
    private var capture: [Int16]
    /// Values written since the bus was made; a reader's position counts the same way.
    private var captureWritten: UInt64 = 0
    private var readerPositions: [ObjectIdentifier: UInt64] = [:]
    private var render: [Int16]
    private var renderRead = 0
    private var sinkPositions: [ObjectIdentifier: Int] = [:]

    /// A bus with rings for `capacitySamples` interleaved samples each (default one
    /// second of stereo at 48 kHz; at least one sample). A ring smaller than the engine's
    /// 20 ms frame carries no capture: publishers read none from it.
    public init(capacitySamples: Int = 96_000) {
        let capacity = max(capacitySamples, 1)
        capture = Array(repeating: 0, count: capacity)
        render = Array(repeating: 0, count: capacity)
    }

    /// Pushes captured samples (interleaved, `captureFormat`); `numberOfSamples` counts
    /// samples per channel times channels, i.e. Int16 values.
    public func writeCaptureData(_ data: UnsafePointer<Int16>, numberOfSamples: Int) {
        guard numberOfSamples > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        let size = capture.count
        var index = Int(captureWritten % UInt64(size))
        for i in 0..<numberOfSamples {
            capture[index] = data[i]
            index = index + 1 == size ? 0 : index + 1
        }
        captureWritten += UInt64(numberOfSamples)
        // Every reader waits for its own position: wake them all (one signal could wake
        // a reader still short of a frame while another that has one keeps waiting).
        lock.broadcast()
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

    /// Takes exactly the next `count` captured values for `reader` into `into`, waiting up
    /// to `timeoutMilliseconds`. A reader not added starts at the newest sample; one more than
    /// the ring behind skips to the oldest sample kept.
    func takeCapture(into: UnsafeMutablePointer<Int16>, count: Int, timeoutMilliseconds: Int, reader: ObjectIdentifier) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let size = UInt64(capture.count)
        // A frame larger than the ring never fills: refuse it at once rather than wait.
        guard count > 0, UInt64(count) <= size else { return false }
        var position = readerPositions[reader] ?? captureWritten
        let deadline = Date().addingTimeInterval(Double(timeoutMilliseconds) / 1000)
        while captureWritten - position < UInt64(count) {
            if !lock.wait(until: deadline) {
                readerPositions[reader] = position
                return false
            }
            if captureWritten - position > size { position = captureWritten - size }
        }
        if captureWritten - position > size { position = captureWritten - size }
        var index = Int(position % size)
        for i in 0..<count {
            into[i] = capture[index]
            index = index + 1 == Int(size) ? 0 : index + 1
        }
        readerPositions[reader] = position + UInt64(count)
        return true
    }

    /// Starts a publisher's reading at the newest sample: what the device writes from now
    /// on is all read, in order. Returns true when it is the only reader now (the device's
    /// capture is the bus's to start).
    @discardableResult
    func addCaptureReader(_ reader: ObjectIdentifier) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        readerPositions[reader] = captureWritten
        return readerPositions.count == 1
    }

    /// Forgets a publisher's read position (its next read starts at the newest sample).
    /// Returns true when no reader is left (the device's capture may stop: another
    /// publisher still reading keeps it running).
    @discardableResult
    func removeCaptureReader(_ reader: ObjectIdentifier) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        readerPositions[reader] = nil
        return readerPositions.isEmpty
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
