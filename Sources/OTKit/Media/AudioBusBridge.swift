import OTMedia
import Synchronization

/// A custom device's capture as an engine `AudioSource`: whole 20 ms frames taken from
/// the bus's capture ring. Cost per frame: one copy of its samples; pooled frames.
final class BusAudioSource: AudioSource, @unchecked Sendable {
    let format: AudioFormat
    private let device: any OTAudioDevice
    private let bus: OTAudioBus
    private let pool: AudioFramePool
    private let counters = Mutex(CaptureStatistics())
    private let sequence = Atomic<UInt64>(0)

    init(device: any OTAudioDevice, bus: OTAudioBus) throws(MediaError) {
        let deviceFormat = device.captureFormat()
        format = AudioFormat(sampleRate: deviceFormat.sampleRate, channels: deviceFormat.numChannels, frameMilliseconds: 20)
        try format.validate()
        self.device = device
        self.bus = bus
        pool = AudioFramePool(format: format, initialCount: 2, maximumCount: 8)
    }

    func start() throws(MediaError) {
        guard device.captureIsAvailable() else { throw MediaError(.audioUnavailable, "the custom audio device cannot capture") }
        if !device.captureIsInitialized() { _ = device.initializeCapture() }
        // One device serves every publisher in the process (OpenTok's model): started for
        // the first reader (or if it stopped), stopped when the last one leaves, so a
        // publisher's new pipeline starting before its old one stops keeps the capture on.
        let first = bus.addCaptureReader(ObjectIdentifier(self))
        guard !first && device.isCapturing() || device.startCapture() else {
            bus.removeCaptureReader(ObjectIdentifier(self))
            throw MediaError(.audioUnavailable, "the custom audio device refused startCapture")
        }
    }

    func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> AudioFrame? {
        guard let frame = pool.take() else {
            counters.withLock { $0.framesDropped += 1 }
            return nil
        }
        guard bus.takeCapture(into: frame.samples, count: format.samplesPerFrame, timeoutMilliseconds: timeoutMilliseconds,
                              reader: ObjectIdentifier(self)) else {
            return nil
        }
        frame.timestampNanoseconds = MonotonicClock.nanoseconds()
        frame.sequence = sequence.add(1, ordering: .relaxed).newValue
        counters.withLock { $0.framesDelivered += 1 }
        return frame
    }

    func stop() {
        if bus.removeCaptureReader(ObjectIdentifier(self)) { _ = device.stopCapture() }
    }

    var statistics: CaptureStatistics { counters.withLock { $0 } }
}

/// A subscriber's decoded audio into a custom device's render ring (mixed with the
/// other subscribers'). Starts the device's rendering with the first subscriber.
final class BusAudioSink: AudioSink, @unchecked Sendable {
    let format: AudioFormat
    private let device: any OTAudioDevice
    private let bus: OTAudioBus

    init(device: any OTAudioDevice, bus: OTAudioBus) {
        let deviceFormat = device.renderFormat()
        format = AudioFormat(sampleRate: 48_000, channels: deviceFormat.numChannels == 2 ? 2 : 1, frameMilliseconds: 20)
        self.device = device
        self.bus = bus
    }

    func start() throws(MediaError) {
        if !device.renderingIsInitialized() { _ = device.initializeRendering() }
        if !device.isRendering() { _ = device.startRendering() }
    }

    func write(_ frame: AudioFrame) throws(MediaError) {
        bus.mixRender(from: frame.samples, count: frame.samplesPerChannel * frame.format.channels,
                      sink: ObjectIdentifier(self), delay: format.samplesPerFrame * 3)
    }

    func stop() { bus.removeRenderer(ObjectIdentifier(self)) }
}
