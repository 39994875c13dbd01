import Dispatch
import Foundation
import OTKit
import OTMedia
import Synchronization

/// The command's `OTAudioDevice`: capture from one engine `AudioSource` (an ALSA
/// microphone by name, or the tone), pushed into the SDK's bus from a thread of its
/// own; playback of the subscribers' mix, pulled every 20 ms and written to each sink
/// (an ALSA speaker, a WAV file). Either side may be absent.
///
/// Cost: one thread per side while running; per 20 ms frame a copy into the bus and
/// one write per sink, frames from a small pool (no allocation in steady state).
final class CommandAudioDevice: OTAudioDevice, @unchecked Sendable {
    private let source: (any AudioSource)?
    private let sinks: [any AudioSink]
    private var renderDone: DispatchSemaphore?
    private var audioBus: OTAudioBus?
    private let capturing = Atomic<Bool>(false)
    private let rendering = Atomic<Bool>(false)
    /// Peak level of the last captured frame, 0...1000 (thousandths).
    let captureLevel = Atomic<Int>(0)
    /// Frames captured and frames rendered so far.
    let framesCaptured = Atomic<Int>(0)
    let framesRendered = Atomic<Int>(0)
    /// Called once when the capture source fails (e.g. the sound card went away).
    let onCaptureFailure: @Sendable (String) -> Void

    /// A device capturing from `source` (nil: none) and playing to `sinks` (empty: none).
    init(source: (any AudioSource)?, sinks: [any AudioSink], onCaptureFailure: @escaping @Sendable (String) -> Void = { _ in }) {
        self.source = source
        self.sinks = sinks
        self.onCaptureFailure = onCaptureFailure
    }

    func setAudioBus(_ audioBus: OTAudioBus?) -> Bool {
        self.audioBus = audioBus
        return true
    }

    func captureFormat() -> OTAudioFormat { OTAudioFormat(sampleRate: 48_000, numChannels: 1) }
    func renderFormat() -> OTAudioFormat { OTAudioFormat(sampleRate: 48_000, numChannels: 1) }
    func renderingIsAvailable() -> Bool { true }
    func initializeRendering() -> Bool { true }
    func renderingIsInitialized() -> Bool { true }
    func isRendering() -> Bool { rendering.load(ordering: .acquiring) }
    func estimatedRenderDelay() -> UInt16 { 60 }
    func captureIsAvailable() -> Bool { source != nil }
    func initializeCapture() -> Bool { source != nil }
    func captureIsInitialized() -> Bool { source != nil }
    func isCapturing() -> Bool { capturing.load(ordering: .acquiring) }
    func estimatedCaptureDelay() -> UInt16 { 20 }

    /// Starts the capture thread (false without a source or when it cannot start).
    func startCapture() -> Bool {
        guard let source, let bus = audioBus else { return false }
        guard !capturing.exchange(true, ordering: .acquiringAndReleasing) else { return true }
        do { try source.start() } catch {
            capturing.store(false, ordering: .releasing)
            onCaptureFailure("cannot start audio capture: \(error.message)")
            return false
        }
        let thread = Thread { [self] in
            while capturing.load(ordering: .acquiring) {
                do throws(MediaError) {
                    guard let frame = try source.nextFrame(timeoutMilliseconds: 100) else { continue }
                    let count = frame.samplesPerChannel * frame.format.channels
                    var peak: Int32 = 0
                    for i in 0..<count { peak = max(peak, abs(Int32(frame.samples[i]))) }
                    captureLevel.store(Int(peak) * 1000 / 32768, ordering: .relaxed)
                    bus.writeCaptureData(frame.samples, numberOfSamples: count)
                    framesCaptured.add(1, ordering: .relaxed)
                } catch {
                    onCaptureFailure("audio capture stopped: \(error.message)")
                    capturing.store(false, ordering: .releasing)
                }
            }
        }
        thread.name = "otkit-audio-in"
        thread.start()
        return true
    }

    /// Asks the capture thread to stop (within 100 ms) and stops the source.
    func stopCapture() -> Bool {
        if capturing.exchange(false, ordering: .acquiringAndReleasing) {
            usleep(150_000)
            source?.stop()
        }
        return true
    }

    /// Starts the playback thread: every 20 ms (paced by the clock, or by an ALSA
    /// speaker's blocking writes when there is one) one frame of the mix to every sink.
    func startRendering() -> Bool {
        guard let bus = audioBus else { return false }
        guard !rendering.exchange(true, ordering: .acquiringAndReleasing) else { return true }
        var live: [any AudioSink] = []
        for sink in sinks {
            do { try sink.start(); live.append(sink) } catch { onCaptureFailure("cannot start audio output: \(error.message)") }
        }
        let clockPaced = !live.contains { $0 is ALSASpeaker }
        let outputs = live
        let done = DispatchSemaphore(value: 0)
        renderDone = done
        let thread = Thread { [self] in
            let frame = AudioFrame(format: .mono20ms)
            var next = MonotonicClock.nanoseconds()
            while rendering.load(ordering: .acquiring) {
                if clockPaced {
                    next += 20_000_000
                    let now = MonotonicClock.nanoseconds()
                    if next > now { usleep(UInt32((next - now) / 1000)) } else if now - next > 200_000_000 { next = now }
                }
                frame.samplesPerChannel = AudioFormat.mono20ms.samplesPerChannel
                bus.readRenderData(frame.samples, numberOfSamples: frame.samplesPerChannel)
                for sink in outputs { try? sink.write(frame) }
                framesRendered.add(1, ordering: .relaxed)
            }
            for sink in outputs { sink.stop() }
            done.signal()
        }
        thread.name = "otkit-audio-out"
        thread.start()
        return true
    }

    /// Asks the playback thread to stop; it stops (and closes) the sinks.
    func stopRendering() -> Bool {
        rendering.store(false, ordering: .releasing)
        return true
    }

    /// Stops both sides and waits long enough for the threads to close their sinks
    /// (a WAV file gets its final sizes written).
    func shutdown() {
        _ = stopCapture()
        rendering.store(false, ordering: .releasing)
        if let renderDone { _ = renderDone.wait(timeout: .now() + 2) }
    }
}
