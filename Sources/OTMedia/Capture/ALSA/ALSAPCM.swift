import CALSA
import Glibc

/// An open, configured ALSA PCM: interleaved S16_LE at 48 kHz, 10 ms periods,
/// non-blocking (the owner waits with `snd_pcm_wait`). Closed when released.
///
/// Not thread-safe: `ALSAMicrophone` and `ALSASpeaker` keep it inside a mutex. Opening
/// costs a few allocations (hw/sw parameter blocks, the optional config tree); reading and
/// writing allocate nothing.
final class ALSAPCM {
    /// The alsa-lib handle (`snd_pcm_t *`).
    let handle: OpaquePointer
    /// The name it was opened with, for messages.
    let device: String
    let direction: ALSADirection
    /// What the device agreed to.
    let parameters: ALSAStreamParameters
    /// The private config tree the PCM was opened from; freed after the PCM is closed.
    private let configuration: OpaquePointer?

    private init(handle: OpaquePointer, device: String, direction: ALSADirection,
                 parameters: ALSAStreamParameters, configuration: OpaquePointer?) {
        self.handle = handle
        self.device = device
        self.direction = direction
        self.parameters = parameters
        self.configuration = configuration
    }

    deinit {
        snd_pcm_close(handle)
        if let configuration { snd_config_delete(configuration) }
    }

    /// Opens `device` and configures it for `format`.
    ///
    /// - `configuration`: asoundrc-syntax text used *instead of* the system configuration
    ///   to resolve `device` (it may include the system file with
    ///   `</usr/share/alsa/alsa.conf>`).
    /// - `periods`: buffer length in 10 ms periods.
    /// - `startFrames`: the start threshold in frames (clamped to the buffer).
    static func open(device: String, direction: ALSADirection, format: AudioFormat,
                     configuration text: String?, periods: Int, startFrames: Int) throws(MediaError) -> ALSAPCM {
        ALSALibrary.begin()
        let configuration = try text.map { text throws(MediaError) in try loadConfiguration(text) }
        var handle: OpaquePointer?
        let mode = Int32(SND_PCM_NONBLOCK)
        let status: Int32
        if let configuration {
            status = snd_pcm_open_lconf(&handle, device, direction.stream, mode, configuration)
        } else {
            status = snd_pcm_open(&handle, device, direction.stream, mode)
        }
        guard status >= 0, let handle else {
            if let configuration { snd_config_delete(configuration) }
            throw ALSALibrary.openError(status, device: device, direction: direction)
        }
        let parameters: ALSAStreamParameters
        do {
            parameters = try configure(handle, device: device, format: format, periods: periods, startFrames: startFrames)
        } catch {
            snd_pcm_close(handle)
            if let configuration { snd_config_delete(configuration) }
            throw error
        }
        return ALSAPCM(handle: handle, device: device, direction: direction,
                       parameters: parameters, configuration: configuration)
    }

    /// Parses asoundrc-syntax text into a fresh top-level config tree.
    private static func loadConfiguration(_ text: String) throws(MediaError) -> OpaquePointer {
        var top: OpaquePointer?
        guard snd_config_top(&top) >= 0, let top else {
            throw MediaError(.systemError, "alsa-lib could not create a configuration tree")
        }
        var input: OpaquePointer?
        let status: Int32 = text.withCString { bytes in
            guard snd_input_buffer_open(&input, bytes, strlen(bytes)) >= 0, let input else { return -ENOMEM }
            defer { snd_input_close(input) }
            return snd_config_load(top, input)
        }
        guard status >= 0 else {
            snd_config_delete(top)
            throw MediaError(.invalidArgument, "the ALSA configuration text does not parse (\(ALSALibrary.detail(status)))")
        }
        return top
    }

    /// Sets the hardware parameters (RW interleaved, S16_LE, channels, exactly 48 kHz,
    /// 10 ms periods, `periods` of them) and the software ones (start threshold, wake-up
    /// every period).
    private static func configure(_ pcm: OpaquePointer, device: String, format: AudioFormat,
                                  periods: Int, startFrames: Int) throws(MediaError) -> ALSAStreamParameters {
        var hw: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hw) >= 0, let hw else {
            throw MediaError(.systemError, "out of memory for ALSA hardware parameters")
        }
        defer { snd_pcm_hw_params_free(hw) }
        func fail(_ status: Int32, _ what: String) -> MediaError {
            MediaError(.unsupportedFormat, "audio device '\(device)' \(what) (\(ALSALibrary.detail(status))); open it through the plug layer, e.g. 'plughw:CARD,DEV' instead of 'hw:CARD,DEV', which converts")
        }
        var status = snd_pcm_hw_params_any(pcm, hw)
        guard status >= 0 else { throw fail(status, "reports no usable configuration") }
        status = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard status >= 0 else { throw fail(status, "cannot do interleaved read/write access") }
        status = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE)
        guard status >= 0 else { throw fail(status, "cannot do signed 16-bit little-endian samples (S16_LE)") }
        status = snd_pcm_hw_params_set_channels(pcm, hw, UInt32(format.channels))
        guard status >= 0 else { throw fail(status, "cannot do \(format.channels) channel(s)") }
        var rate = UInt32(format.sampleRate)
        var direction: Int32 = 0
        status = snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &direction)
        guard status >= 0 else { throw fail(status, "cannot run at \(format.sampleRate) Hz") }
        guard rate == UInt32(format.sampleRate) && direction == 0 else {
            throw MediaError(.unsupportedFormat, "audio device '\(device)' cannot run at \(format.sampleRate) Hz exactly (nearest: \(rate) Hz); open it through the plug layer, e.g. 'plughw:CARD,DEV' instead of 'hw:CARD,DEV', which resamples")
        }
        let period = format.sampleRate / 100
        var periodFrames = snd_pcm_uframes_t(period)
        direction = 0
        status = snd_pcm_hw_params_set_period_size_near(pcm, hw, &periodFrames, &direction)
        guard status >= 0 else { throw fail(status, "refuses a 10 ms period") }
        var bufferFrames = snd_pcm_uframes_t(Int(periodFrames) * periods)
        status = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &bufferFrames)
        guard status >= 0 else { throw fail(status, "refuses a \(periods)-period buffer") }
        status = snd_pcm_hw_params(pcm, hw)
        guard status >= 0 else { throw fail(status, "refuses the configuration \(format)") }
        snd_pcm_hw_params_get_period_size(hw, &periodFrames, &direction)
        snd_pcm_hw_params_get_buffer_size(hw, &bufferFrames)

        var sw: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&sw) >= 0, let sw else {
            throw MediaError(.systemError, "out of memory for ALSA software parameters")
        }
        defer { snd_pcm_sw_params_free(sw) }
        status = snd_pcm_sw_params_current(pcm, sw)
        if status >= 0 {
            let start = min(max(startFrames, 1), Int(bufferFrames))
            status = snd_pcm_sw_params_set_start_threshold(pcm, sw, snd_pcm_uframes_t(start))
        }
        if status >= 0 { status = snd_pcm_sw_params_set_avail_min(pcm, sw, periodFrames) }
        if status >= 0 { status = snd_pcm_sw_params(pcm, sw) }
        guard status >= 0 else {
            throw MediaError(.systemError, "audio device '\(device)' refuses its software parameters (\(ALSALibrary.detail(status)))")
        }
        return ALSAStreamParameters(sampleRate: Int(rate), channels: format.channels,
                                    periodFrames: Int(periodFrames), bufferFrames: Int(bufferFrames))
    }

    /// Recovers from an over/underrun (-EPIPE), a suspend (-ESTRPIPE) or a signal (-EINTR)
    /// with `snd_pcm_recover`. Returns true when an xrun or suspend was recovered (the
    /// caller counts it), false for an interrupted call. Throws `deviceLost` for errors
    /// that mean the device is gone, `systemError` for the rest.
    func recover(_ code: Int32) throws(MediaError) -> Bool {
        switch -code {
        case EPIPE, ESTRPIPE, EINTR:
            let status = snd_pcm_recover(handle, code, 1)
            guard status >= 0 else {
                throw MediaError(.deviceLost, "audio \(direction.noun) device '\(device)' did not recover (\(ALSALibrary.detail(status)))")
            }
            return -code != EINTR
        case ENODEV, EBADFD, EIO, ENXIO:
            throw MediaError(.deviceLost, "audio \(direction.noun) device '\(device)' went away (\(ALSALibrary.detail(code)))")
        default:
            throw MediaError(.systemError, "audio \(direction.noun) on '\(device)' failed (\(ALSALibrary.detail(code)))")
        }
    }

    /// Waits until the device can be read or written, at most `milliseconds`.
    /// Returns >0 ready, 0 timeout, <0 an alsa-lib error (pass it to `recover`).
    func wait(milliseconds: Int) -> Int32 {
        snd_pcm_wait(handle, Int32(clamping: max(0, milliseconds)))
    }

    /// True while the stream is prepared but not running (capture must be started).
    var isPrepared: Bool { snd_pcm_state(handle) == SND_PCM_STATE_PREPARED }

    /// Frames queued between the application and the converter (alsa-lib's delay), or nil.
    func delayFrames() -> Int? {
        var delay: snd_pcm_sframes_t = 0
        guard snd_pcm_delay(handle, &delay) >= 0 else { return nil }
        return max(0, delay)
    }
}
