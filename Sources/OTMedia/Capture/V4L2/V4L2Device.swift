import CV4L2
import Glibc

/// Opening a V4L2 node and asking it what it is and what it offers. Internal: the
/// public face is `V4L2Camera.devices()` and `V4L2Camera.init`.
enum V4L2Device {
    /// The identity and capabilities of an opened node.
    struct Identity {
        var card: String
        var driver: String
        var busInfo: String
        /// `device_caps` when the driver sets it (the node's own), else `capabilities`.
        var deviceCaps: UInt32
    }

    /// The buffer type every capture call uses.
    static let captureType = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue

    /// Opens `path` read-write and non-blocking after checking it is a character device.
    /// Throws `noSuchDevice`, `notACaptureDevice` (regular file, directory…),
    /// `permissionDenied` or `deviceBusy`.
    static func open(path: String) throws(MediaError) -> Int32 {
        var info = stat()
        if stat(path, &info) != 0 {
            throw V4L2Errors.from(errno: errno, path: path, doing: "stat")
        }
        switch info.st_mode & S_IFMT {
        case S_IFCHR: break
        case S_IFREG: throw V4L2Errors.regularFile(path, kind: "a regular file")
        case S_IFDIR: throw V4L2Errors.regularFile(path, kind: "a directory")
        default: throw V4L2Errors.regularFile(path, kind: "neither a file nor a character device")
        }
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw V4L2Errors.from(errno: errno, path: path, doing: "open") }
        return fd
    }

    /// VIDIOC_QUERYCAP. Throws `notACaptureDevice` for a character device that is not
    /// V4L2 (ENOTTY/EINVAL), `noSuchDevice` when the device is gone.
    static func identify(fd: Int32, path: String) throws(MediaError) -> Identity {
        var caps = v4l2_capability()
        guard cv4l2_ioctl(fd, CV4L2_VIDIOC_QUERYCAP, &caps) == 0 else {
            let code = errno
            if code == ENOTTY || code == EINVAL { throw V4L2Errors.notV4L2(path) }
            throw V4L2Errors.from(errno: code, path: path, doing: "VIDIOC_QUERYCAP")
        }
        let deviceCaps = caps.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? caps.device_caps : caps.capabilities
        return Identity(card: cString(caps.card), driver: cString(caps.driver), busInfo: cString(caps.bus_info),
                        deviceCaps: deviceCaps)
    }

    /// Throws unless the node captures single-planar video with streaming I/O.
    static func requireCapture(_ identity: Identity, path: String) throws(MediaError) {
        let caps = identity.deviceCaps
        if caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) == 0 {
            if caps & UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE) != 0 {
                throw MediaError(.unsupportedFormat, "\(path) (\(identity.card)) captures only in multi-planar mode, which OTKit does not support yet")
            }
            throw V4L2Errors.notCapture(path, card: identity.card, driver: identity.driver, kind: kind(of: caps))
        }
        if caps & UInt32(V4L2_CAP_STREAMING) == 0 {
            throw MediaError(.unsupportedFormat, "\(path) (\(identity.card)) offers no streaming I/O (read() only), which OTKit does not support")
        }
    }

    /// What a non-capture node does, in words, for the error message.
    static func kind(of caps: UInt32) -> String {
        let names: [(Int32, String)] = [
            (V4L2_CAP_VIDEO_OUTPUT, "video output"), (V4L2_CAP_VIDEO_OUTPUT_MPLANE, "video output"),
            (V4L2_CAP_VIDEO_M2M, "memory-to-memory"), (V4L2_CAP_VIDEO_M2M_MPLANE, "memory-to-memory"),
            (V4L2_CAP_META_CAPTURE, "metadata capture"), (V4L2_CAP_META_OUTPUT, "metadata output"),
            (V4L2_CAP_VBI_CAPTURE, "VBI capture"), (V4L2_CAP_SLICED_VBI_CAPTURE, "VBI capture"),
            (V4L2_CAP_VBI_OUTPUT, "VBI output"), (V4L2_CAP_SDR_CAPTURE, "software radio"),
            (V4L2_CAP_RADIO, "radio"), (V4L2_CAP_TOUCH, "touch sensor"),
        ]
        for (bit, name) in names where caps & UInt32(truncatingIfNeeded: bit) != 0 { return name }
        return "non-capture"
    }

    /// Everything about a capture node: identity plus formats, sizes and intervals.
    /// Cost: a few dozen ioctls.
    static func describe(fd: Int32, path: String, identity: Identity) -> V4L2DeviceInfo {
        V4L2DeviceInfo(path: path, card: identity.card, driver: identity.driver, busInfo: identity.busInfo,
                       formats: formats(fd: fd))
    }

    /// VIDIOC_ENUM_FMT over every index.
    static func formats(fd: Int32) -> [V4L2FormatInfo] {
        var result: [V4L2FormatInfo] = []
        for index in 0..<256 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = captureType
            guard cv4l2_ioctl(fd, CV4L2_VIDIOC_ENUM_FMT, &description) == 0 else { break }
            let code = description.pixelformat
            result.append(V4L2FormatInfo(fourcc: fourCharacterString(code), pixelFormat: PixelFormat(fourcc: code),
                                         description: cString(description.description),
                                         frameSizes: frameSizes(fd: fd, fourcc: code)))
        }
        return result
    }

    /// VIDIOC_ENUM_FRAMESIZES for one format; an empty discrete list if the driver
    /// does not enumerate sizes.
    static func frameSizes(fd: Int32, fourcc: UInt32) -> V4L2FrameSizes {
        var sizes: [V4L2FrameSize] = []
        for index in 0..<512 {
            var size = v4l2_frmsizeenum()
            size.index = UInt32(index)
            size.pixel_format = fourcc
            guard cv4l2_ioctl(fd, CV4L2_VIDIOC_ENUM_FRAMESIZES, &size) == 0 else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                let width = Int(size.discrete.width), height = Int(size.discrete.height)
                sizes.append(V4L2FrameSize(width: width, height: height,
                                           intervals: intervals(fd: fd, fourcc: fourcc, width: width, height: height)))
            } else {
                let range = size.stepwise
                let continuous = size.type == V4L2_FRMSIZE_TYPE_CONTINUOUS.rawValue
                return .stepwise(V4L2FrameSizeRange(
                    minWidth: Int(range.min_width), maxWidth: Int(range.max_width),
                    stepWidth: continuous ? 1 : Int(range.step_width),
                    minHeight: Int(range.min_height), maxHeight: Int(range.max_height),
                    stepHeight: continuous ? 1 : Int(range.step_height),
                    intervals: intervals(fd: fd, fourcc: fourcc, width: Int(range.max_width), height: Int(range.max_height))))
            }
        }
        return .discrete(sizes)
    }

    /// VIDIOC_ENUM_FRAMEINTERVALS for one format and size; an empty list if the driver
    /// does not say.
    static func intervals(fd: Int32, fourcc: UInt32, width: Int, height: Int) -> V4L2FrameIntervals {
        var list: [V4L2FrameInterval] = []
        for index in 0..<256 {
            var interval = v4l2_frmivalenum()
            interval.index = UInt32(index)
            interval.pixel_format = fourcc
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            guard cv4l2_ioctl(fd, CV4L2_VIDIOC_ENUM_FRAMEINTERVALS, &interval) == 0 else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                list.append(fraction(interval.discrete))
            } else {
                let range = interval.stepwise
                let step = interval.type == V4L2_FRMIVAL_TYPE_CONTINUOUS.rawValue
                    ? V4L2FrameInterval(numerator: 1, denominator: 1_000_000) : fraction(range.step)
                return .stepwise(minimum: fraction(range.min), maximum: fraction(range.max), step: step)
            }
        }
        return .discrete(list)
    }

    static func fraction(_ value: v4l2_fract) -> V4L2FrameInterval {
        V4L2FrameInterval(numerator: Int(value.numerator), denominator: Int(value.denominator))
    }

    /// A NUL-terminated fixed-size C char array (imported as a tuple) as a String.
    static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
