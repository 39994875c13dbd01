import Glibc

/// The actionable errors of the V4L2 camera, one place for their wording.
enum V4L2Errors {
    /// errno's text, e.g. "Device or resource busy".
    static func text(_ code: Int32) -> String { String(cString: strerror(code)) }

    static func noSuchPath(_ path: String) -> MediaError {
        MediaError(.noSuchDevice, "no video device at \(path): the path does not exist; list cameras with V4L2Camera.devices() or `v4l2-ctl --list-devices`")
    }

    static func regularFile(_ path: String, kind: String) -> MediaError {
        MediaError(.notACaptureDevice, "\(path) is \(kind), not a video device; cameras are character devices such as /dev/video0")
    }

    static func notV4L2(_ path: String) -> MediaError {
        MediaError(.notACaptureDevice, "\(path) is a character device but not a V4L2 video device (it does not answer VIDIOC_QUERYCAP); cameras are /dev/video* nodes")
    }

    static func notCapture(_ path: String, card: String, driver: String, kind: String) -> MediaError {
        MediaError(.notACaptureDevice, "\(path) (\(card), driver \(driver)) is a V4L2 \(kind) device, not a video capture device; pick another node from V4L2Camera.devices()")
    }

    static func permission(_ path: String) -> MediaError {
        MediaError(.permissionDenied, "permission denied opening \(path): add your user to the 'video' group: sudo usermod -aG video $USER (then log out and back in)")
    }

    static func busy(_ path: String) -> MediaError {
        MediaError(.deviceBusy, "\(path) is busy: another program is capturing from this camera; close it and try again")
    }

    static func gone(_ path: String) -> MediaError {
        MediaError(.noSuchDevice, "\(path) exists but no device answers (unplugged?)")
    }

    static func lost(_ path: String, _ detail: String) -> MediaError {
        MediaError(.deviceLost, "the camera \(path) went away while streaming (\(detail)); plug it back in and start again")
    }

    /// Maps an errno from open(2) or an ioctl to the error a person can act on.
    static func from(errno code: Int32, path: String, doing action: String) -> MediaError {
        switch code {
        case ENOENT, ENOTDIR: return noSuchPath(path)
        case EACCES, EPERM: return permission(path)
        case EBUSY: return busy(path)
        case ENODEV, ENXIO: return gone(path)
        case ENOTTY: return notV4L2(path)
        default: return MediaError(.systemError, "\(action) on \(path) failed: \(text(code)) (errno \(code))")
        }
    }
}
