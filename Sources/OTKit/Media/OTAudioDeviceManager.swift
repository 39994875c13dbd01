import OTMedia
import Synchronization

/// The process-wide audio device (`OTAudioDeviceManager`). Set a custom device before
/// any session publishes or subscribes; publishers and subscribers created earlier keep
/// the device they started with.
public enum OTAudioDeviceManager {
    private static let installed = Mutex<(device: any OTAudioDevice, bus: OTAudioBus)?>(nil)

    /// Installs `device` (nil: back to the default device) and hands it a new
    /// `OTAudioBus` (`setAudioBus`). Cost: a lock and the bus's two rings.
    public static func setAudioDevice(_ device: (any OTAudioDevice)?) {
        guard let device else {
            installed.withLock { $0 = nil }
            return
        }
        let bus = OTAudioBus()
        _ = device.setAudioBus(bus)
        installed.withLock { $0 = (device, bus) }
    }

    /// The installed device, or the default one: the ALSA microphone and speaker
    /// when the machine has a sound card; otherwise a synthetic 440 Hz tone stands in for
    /// the microphone and played audio is discarded (never a crash without a sound card).
    public static func currentAudioDevice() -> any OTAudioDevice {
        installed.withLock { $0?.device } ?? OTDefaultAudioDevice.shared
    }

    /// The engine source for a new publisher: the default device's own source, or the
    /// installed device's capture through its bus.
    static func makeCaptureSource() throws(MediaError) -> any AudioSource {
        if let (device, bus) = installed.withLock({ $0 }) {
            return try BusAudioSource(device: device, bus: bus)
        }
        return try OTDefaultAudioDevice.shared.makeCaptureSource()
    }

    /// The engine sink for a new subscriber, as for `makeCaptureSource`.
    static func makeRenderSink() -> any AudioSink {
        if let (device, bus) = installed.withLock({ $0 }) {
            return BusAudioSink(device: device, bus: bus)
        }
        return OTDefaultAudioDevice.shared.makeRenderSink()
    }
}

