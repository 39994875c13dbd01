import CALSA
import Glibc

/// Process-wide alsa-lib set-up and error translation, shared by the microphone and the
/// speaker.
///
/// alsa-lib prints its diagnostics to stderr by default ("ALSA lib confmisc.c:…
/// cannot find card '0'"). On a machine with no sound card that is noise for a process
/// that will simply publish without audio, so the first use installs a handler (see
/// CALSA.h) that keeps the calling thread's last message instead; the engine then puts
/// that message into its `MediaError`.
enum ALSALibrary {
    /// Installed once, lazily and thread-safely (a Swift global initializer).
    private static let handlerInstalled: Bool = calsa_install_error_handler() == 0

    /// Installs the quiet error handler if needed and forgets this thread's last
    /// message. Call before a sequence of snd_* calls whose failure you will report.
    static func begin() {
        _ = handlerInstalled
        calsa_clear_last_error()
    }

    /// This thread's last alsa-lib message since `begin()`, or nil.
    static func lastMessage() -> String? {
        let text = String(cString: calsa_last_error())
        return text.isEmpty ? nil : text
    }

    /// `snd_strerror` for a negative alsa-lib return value.
    static func describe(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }

    /// "ALSA: <strerror>[; <last alsa-lib message>]" for error messages.
    static func detail(_ code: Int32) -> String {
        var text = "ALSA: \(describe(code))"
        if let message = lastMessage() { text += "; \(message)" }
        return text
    }

    /// Maps a failed `snd_pcm_open` to the engine's error: busy and permission problems
    /// keep their own codes (a person can fix them); everything else means there is no
    /// such device, which callers treat as "go on without audio".
    static func openError(_ code: Int32, device: String, direction: ALSADirection) -> MediaError {
        switch -code {
        case EBUSY:
            return MediaError(.deviceBusy, "audio \(direction.noun) device '\(device)' is busy: another program holds it (\(detail(code)))")
        case EACCES, EPERM:
            return MediaError(.permissionDenied, "no permission to open audio \(direction.noun) device '\(device)'; add the user to the 'audio' group (\(detail(code)))")
        default:
            return MediaError(.audioUnavailable, "no audio \(direction.noun) device '\(device)' (\(detail(code))); \(direction.fallback)")
        }
    }
}

/// Which way samples flow through a PCM.
enum ALSADirection: Sendable {
    case capture
    case playback

    var stream: snd_pcm_stream_t {
        switch self {
        case .capture: SND_PCM_STREAM_CAPTURE
        case .playback: SND_PCM_STREAM_PLAYBACK
        }
    }

    /// "capture" or "playback", for messages.
    var noun: String {
        switch self {
        case .capture: "capture"
        case .playback: "playback"
        }
    }

    /// What the caller does next when the device is missing, for messages.
    var fallback: String {
        switch self {
        case .capture: "publishing without audio"
        case .playback: "playing without audio"
        }
    }
}
