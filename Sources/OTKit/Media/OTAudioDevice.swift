/// The shape of PCM a custom audio device works in (`OTAudioFormat`). The engine runs
/// at 48 kHz; devices must capture and render at that rate (mono or stereo).
public struct OTAudioFormat: Sendable, Equatable {
    /// Samples per second per channel (48 000).
    public var sampleRate: Int
    /// 1 or 2.
    public var numChannels: Int

    /// A format.
    public init(sampleRate: Int = 48_000, numChannels: Int = 1) {
        self.sampleRate = sampleRate
        self.numChannels = numChannels
    }
}

/// A custom audio driver (`OTAudioDevice`): where publishers' sound comes from and
/// subscribers' sound goes. Process-global: install it with
/// `OTAudioDeviceManager.setAudioDevice(_:)` before any session publishes or subscribes.
///
/// The SDK gives the device an `OTAudioBus` (`setAudioBus`); while capturing, the device
/// pushes 16-bit interleaved samples with `writeCaptureData` from its own thread; while
/// rendering, it pulls mixed subscriber audio with `readRenderData`.
public protocol OTAudioDevice: AnyObject, Sendable {
    /// Receives the bus to exchange samples on; returns true when accepted.
    func setAudioBus(_ audioBus: OTAudioBus?) -> Bool
    /// The format captured samples have (48 kHz).
    func captureFormat() -> OTAudioFormat
    /// The format rendered samples should have (48 kHz).
    func renderFormat() -> OTAudioFormat
    /// Whether the device can play sound now.
    func renderingIsAvailable() -> Bool
    /// Prepares playback; returns true on success.
    func initializeRendering() -> Bool
    /// Whether `initializeRendering` succeeded.
    func renderingIsInitialized() -> Bool
    /// Starts pulling render data; returns true on success.
    func startRendering() -> Bool
    /// Stops pulling render data; returns true on success.
    func stopRendering() -> Bool
    /// Whether it is pulling render data.
    func isRendering() -> Bool
    /// Playback delay, milliseconds.
    func estimatedRenderDelay() -> UInt16
    /// Whether the device can capture now.
    func captureIsAvailable() -> Bool
    /// Prepares capture; returns true on success.
    func initializeCapture() -> Bool
    /// Whether `initializeCapture` succeeded.
    func captureIsInitialized() -> Bool
    /// Starts pushing capture data; returns true on success.
    func startCapture() -> Bool
    /// Stops pushing capture data; returns true on success.
    func stopCapture() -> Bool
    /// Whether it is pushing capture data.
    func isCapturing() -> Bool
    /// Capture delay, milliseconds.
    func estimatedCaptureDelay() -> UInt16
}
