/// Options for an `OTPublisherKit` (`OTPublisherKitSettings`), read once when the
/// publisher is created.
public class OTPublisherKitSettings {
    /// The stream's name (default nil: empty).
    public var name: String?
    /// Whether the publisher has audio at all (default true). False: no audio source is
    /// opened; unlike `publishAudio`, which only toggles.
    public var audioTrack = true
    /// Whether the publisher has video at all (default true), as for `audioTrack`.
    public var videoTrack = true
    /// Opus bitrate, bits per second: 6,000–510,000; values outside the range are
    /// ignored (the previous value stays), as in OpenTok. Default 40,000.
    public var audioBitrate: Int32 {
        get { storedAudioBitrate }
        set { if (6_000...510_000).contains(newValue) { storedAudioBitrate = newValue } }
    }
    /// Opus discontinuous transmission (fewer packets in silence). Default false.
    public var enableOpusDtx = false
    /// A custom capturer for the video (`OTPublisherKit` publishes no video without one;
    /// `OTPublisher` uses its camera when nil).
    public var videoCapture: (any OTVideoCapture)?
    /// Publisher audio fallback (`publisherAudioFallbackEnabled`, default false, as in
    /// OpenTok): when the uplink cannot carry video, the publisher stops encoding video
    /// (audio goes on), tells its delegate (`publisherVideoDisableWarning`, then
    /// `publisherVideoDisabled(reason: .qualityChanged)`) and sends video again when the
    /// network recovers (`publisherVideoEnabled`). Routed and relayed sessions.
    public var publisherAudioFallbackEnabled = false
    /// Subscriber audio fallback for every subscriber of this stream
    /// (`subscriberAudioFallbackEnabled`): the router stops sending video to a subscriber
    /// whose downlink cannot carry it (`subscriberVideoDisableWarning`, then
    /// `subscriberVideoDisabled(reason: .qualityChanged)`). OpenTok's default: on for
    /// camera and custom video, off for screen sharing. Routed sessions only (relayed
    /// sessions have no router in the media path; the value is then not used).
    public var subscriberAudioFallbackEnabled: Bool {
        get { storedSubscriberFallback ?? true }
        set { storedSubscriberFallback = newValue }
    }

    private var storedAudioBitrate: Int32 = 40_000
    /// Nil until the app sets it: the default then follows the video type.
    var storedSubscriberFallback: Bool?

    /// The defaults above.
    public init() {}
}

/// Camera capture sizes (`OTCameraCaptureResolution`).
public enum OTCameraCaptureResolution: Sendable, CaseIterable {
    /// 320x240.
    case low
    /// 640x480 (default).
    case medium
    /// 1280x720.
    case high
    /// 1920x1080.
    case high1080p

    var size: (width: Int, height: Int) {
        switch self {
        case .low: return (320, 240)
        case .medium: return (640, 480)
        case .high: return (1280, 720)
        case .high1080p: return (1920, 1080)
        }
    }
}

/// Camera frame rates (`OTCameraCaptureFrameRate`, OpenTok's values).
public enum OTCameraCaptureFrameRate: Int, Sendable, CaseIterable {
    /// 30 fps (default).
    case rate30FPS = 30
    /// 15 fps.
    case rate15FPS = 15
    /// 7 fps.
    case rate7FPS = 7
    /// 1 fps.
    case rate1FPS = 1
}

/// Options for an `OTPublisher` (`OTPublisherSettings`): the kit's plus the camera's.
public final class OTPublisherSettings: OTPublisherKitSettings {
    /// The camera's capture size (default medium, 640x480).
    public var cameraResolution: OTCameraCaptureResolution = .medium
    /// The camera's frame rate (default 30 fps).
    public var cameraFrameRate: OTCameraCaptureFrameRate = .rate30FPS
    /// V4L2 device path; nil: the first capture device found (`/dev/video*`).
    public var cameraDevicePath: String?
}
