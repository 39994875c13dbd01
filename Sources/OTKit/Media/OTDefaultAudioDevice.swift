import OTMedia
import Synchronization

/// The audio device used when the app installs none: ALSA's "default" PCM for capture
/// and playback when the machine has a sound card (probed once by opening it); otherwise
/// a 440 Hz `ToneSource` stands in for the microphone and played audio goes to a sink
/// that discards it. Publishers and subscribers use its engine source and sink directly
/// (no `OTAudioBus` hop); the `OTAudioDevice` methods report what it found.
public final class OTDefaultAudioDevice: OTAudioDevice {
    /// The one default device.
    public static let shared = OTDefaultAudioDevice()

    private let probe = Mutex<(capture: Bool, render: Bool)?>(nil)
    private let flags = Mutex((capturing: false, rendering: false))

    private init() {}

    /// Whether ALSA could open a capture and a playback device (probed on first use).
    var hardware: (capture: Bool, render: Bool) {
        probe.withLock { found in
            if let found { return found }
            var capture = false
            var render = false
            if let microphone = try? ALSAMicrophone() {
                capture = (try? microphone.start()) != nil
                microphone.stop()
            }
            if let speaker = try? ALSASpeaker() {
                render = (try? speaker.start()) != nil
                speaker.stop()
            }
            found = (capture, render)
            return (capture, render)
        }
    }

    func makeCaptureSource() throws(MediaError) -> any AudioSource {
        if hardware.capture { return try ALSAMicrophone() }
        return try ToneSource(frequency: 440, amplitude: 0.3)
    }

    func makeRenderSink() -> any AudioSink {
        if hardware.render, let speaker = try? ALSASpeaker() { return speaker }
        return DiscardingAudioSink(format: .mono20ms)
    }

    /// Accepts no bus (the default device needs none); returns false.
    public func setAudioBus(_ audioBus: OTAudioBus?) -> Bool { false }
    /// 48 kHz mono.
    public func captureFormat() -> OTAudioFormat { OTAudioFormat() }
    /// 48 kHz mono.
    public func renderFormat() -> OTAudioFormat { OTAudioFormat() }
    /// Always true: without a speaker the sound is discarded.
    public func renderingIsAvailable() -> Bool { true }
    /// Probes ALSA; true.
    public func initializeRendering() -> Bool { _ = hardware; return true }
    /// True once probed.
    public func renderingIsInitialized() -> Bool { probe.withLock { $0 != nil } }
    /// Marks rendering on; true.
    public func startRendering() -> Bool { flags.withLock { $0.rendering = true }; return true }
    /// Marks rendering off; true.
    public func stopRendering() -> Bool { flags.withLock { $0.rendering = false }; return true }
    /// Whether rendering is on.
    public func isRendering() -> Bool { flags.withLock { $0.rendering } }
    /// 60 ms (the subscriber's jitter allowance).
    public func estimatedRenderDelay() -> UInt16 { 60 }
    /// Always true: without a microphone a tone stands in.
    public func captureIsAvailable() -> Bool { true }
    /// Probes ALSA; true.
    public func initializeCapture() -> Bool { _ = hardware; return true }
    /// True once probed.
    public func captureIsInitialized() -> Bool { probe.withLock { $0 != nil } }
    /// Marks capture on; true.
    public func startCapture() -> Bool { flags.withLock { $0.capturing = true }; return true }
    /// Marks capture off; true.
    public func stopCapture() -> Bool { flags.withLock { $0.capturing = false }; return true }
    /// Whether capture is on.
    public func isCapturing() -> Bool { flags.withLock { $0.capturing } }
    /// 20 ms (one frame).
    public func estimatedCaptureDelay() -> UInt16 { 20 }
}

/// A sink that accepts frames and drops them (machines without a speaker). Counts them.
final class DiscardingAudioSink: AudioSink {
    let format: AudioFormat
    let framesDiscarded = Atomic<UInt64>(0)
    init(format: AudioFormat) { self.format = format }
    func start() throws(MediaError) {}
    func write(_ frame: AudioFrame) throws(MediaError) { framesDiscarded.add(1, ordering: .relaxed) }
    func stop() {}
}
