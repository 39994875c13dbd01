import Foundation
import OTMedia
import Synchronization
@testable import OTKit

/// Tests that install or rely on the process-wide audio device hold this lock, so a
/// custom device installed by one test is never seen by another running in parallel.
enum AudioDeviceTestLock {
    static let lock = NSLock()
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// A custom OTAudioDevice as an app would write one: a capture thread pushes a tone in
/// 10 ms pieces through the bus, a render thread pulls 10 ms pieces and keeps them.
final class ToneLoopDevice: OTAudioDevice, @unchecked Sendable {
    let frequency: Double
    private let lock = NSLock()
    private var bus: OTAudioBus?
    private var rendered: [Int16] = []
    private var recent: [Int16] = []
    private let capturing = Atomic<Bool>(false)
    /// Bumped by every start and stop: a capture thread runs while it holds the current one
    /// (a stop and a start within its 10 ms nap would otherwise leave two threads writing).
    private let generation = Atomic<Int>(0)
    private let rendering = Atomic<Bool>(false)

    init(frequency: Double) { self.frequency = frequency }

    /// The first 20 s rendered.
    var renderedSamples: [Int16] { lock.withLock { rendered } }
    /// The last `count` samples rendered (at most 1 s), however long it has run.
    func lastRendered(_ count: Int) -> [Int16] { lock.withLock { Array(recent.suffix(min(count, 48_000))) } }

    func setAudioBus(_ audioBus: OTAudioBus?) -> Bool { lock.withLock { bus = audioBus }; return true }
    func captureFormat() -> OTAudioFormat { OTAudioFormat() }
    func renderFormat() -> OTAudioFormat { OTAudioFormat() }
    func renderingIsAvailable() -> Bool { true }
    func initializeRendering() -> Bool { true }
    func renderingIsInitialized() -> Bool { true }
    func estimatedRenderDelay() -> UInt16 { 10 }
    func captureIsAvailable() -> Bool { true }
    func initializeCapture() -> Bool { true }
    func captureIsInitialized() -> Bool { true }
    func estimatedCaptureDelay() -> UInt16 { 10 }
    func isCapturing() -> Bool { capturing.load(ordering: .relaxed) }
    func isRendering() -> Bool { rendering.load(ordering: .relaxed) }
    func stopCapture() -> Bool {
        capturing.store(false, ordering: .relaxed)
        generation.add(1, ordering: .relaxed)
        return true
    }
    func stopRendering() -> Bool { rendering.store(false, ordering: .relaxed); return true }

    func startCapture() -> Bool {
        guard !capturing.exchange(true, ordering: .relaxed) else { return true }
        let bus = lock.withLock { self.bus }
        let frequency = self.frequency
        let mine = generation.add(1, ordering: .relaxed).newValue
        Thread.detachNewThread { [self] in
            var phase = 0.0
            var piece = [Int16](repeating: 0, count: 480)
            var next = Date()
            while generation.load(ordering: .relaxed) == mine {
                for i in 0..<480 {
                    piece[i] = Int16(8000 * sin(phase))
                    phase += 2 * .pi * frequency / 48_000
                }
                piece.withUnsafeBufferPointer { bus?.writeCaptureData($0.baseAddress!, numberOfSamples: 480) }
                next.addTimeInterval(0.01)
                Thread.sleep(until: next)
            }
        }
        return true
    }

    func startRendering() -> Bool {
        guard !rendering.exchange(true, ordering: .relaxed) else { return true }
        RenderPull.start(bus: lock.withLock { self.bus }, while: { [self] in rendering.load(ordering: .relaxed) }) { [self] piece in
            lock.withLock {
                if rendered.count < 48_000 * 20 { rendered.append(contentsOf: piece) }
                recent.append(contentsOf: piece)
                if recent.count > 96_000 { recent.removeFirst(48_000) }
            }
        }
        return true
    }
}

/// The render side of the tests' audio devices: a thread that pulls 10 ms pieces (480
/// samples at 48 kHz) from `bus` on a 10 ms clock while `running()` is true, handing each to
/// `keep`.
enum RenderPull {
    static func start(bus: OTAudioBus?, while running: @escaping @Sendable () -> Bool, keep: @escaping @Sendable ([Int16]) -> Void) {
        Thread.detachNewThread {
            var piece = [Int16](repeating: 0, count: 480)
            var next = Date()
            while running() {
                piece.withUnsafeMutableBufferPointer { _ = bus?.readRenderData($0.baseAddress!, numberOfSamples: 480) }
                keep(piece)
                next.addTimeInterval(0.01)
                Thread.sleep(until: next)
            }
        }
    }
}
