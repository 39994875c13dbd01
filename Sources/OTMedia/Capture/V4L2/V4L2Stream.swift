import CV4L2
import Glibc

/// The driver's frame buffers, mapped into our memory for mmap streaming, and the
/// ioctls that start and stop the stream. Internal to `V4L2Camera`.
struct V4L2Stream {
    /// One mapped driver buffer.
    struct Mapping {
        var address: UnsafeMutableRawPointer
        var length: Int
    }

    private(set) var mappings: [Mapping] = []
    let fd: Int32
    let path: String

    /// VIDIOC_REQBUFS (`count` MMAP buffers), QUERYBUF and mmap each, QBUF them all, then
    /// STREAMON. On failure everything done so far is undone. Cost: a few syscalls and
    /// one small array; done once per `start`.
    static func start(fd: Int32, path: String, count: Int) throws(MediaError) -> V4L2Stream {
        var stream = V4L2Stream(fd: fd, path: path)
        do throws(MediaError) {
            try stream.begin(count: count)
        } catch {
            stream.stop()
            throw error
        }
        return stream
    }

    private mutating func begin(count: Int) throws(MediaError) {
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = V4L2Device.captureType
        request.memory = V4L2_MEMORY_MMAP.rawValue
        guard cv4l2_ioctl(fd, CV4L2_VIDIOC_REQBUFS, &request) == 0 else {
            let code = errno
            if code == EINVAL {
                throw MediaError(.unsupportedFormat, "\(path) does not support mmap streaming")
            }
            throw V4L2Errors.from(errno: code, path: path, doing: "VIDIOC_REQBUFS")
        }
        guard request.count >= 2 else {
            throw MediaError(.systemError, "\(path) granted only \(request.count) buffer(s); streaming needs at least 2")
        }
        mappings.reserveCapacity(Int(request.count))
        for index in 0..<request.count {
            var buffer = Self.emptyBuffer()
            buffer.index = index
            guard cv4l2_ioctl(fd, CV4L2_VIDIOC_QUERYBUF, &buffer) == 0 else {
                throw V4L2Errors.from(errno: errno, path: path, doing: "VIDIOC_QUERYBUF")
            }
            guard let address = cv4l2_mmap_buffer(fd, Int(buffer.length), buffer.m.offset) else {
                throw V4L2Errors.from(errno: errno, path: path, doing: "mmap of a frame buffer")
            }
            mappings.append(Mapping(address: address, length: Int(buffer.length)))
        }
        for index in 0..<request.count {
            guard queue(index: index) else {
                throw V4L2Errors.from(errno: errno, path: path, doing: "VIDIOC_QBUF")
            }
        }
        var type = Int32(V4L2Device.captureType)
        guard cv4l2_ioctl(fd, CV4L2_VIDIOC_STREAMON, &type) == 0 else {
            let code = errno
            if code == ENOSPC {
                throw MediaError(.deviceBusy, "\(path) cannot start: not enough USB bandwidth; use a smaller size, MJPEG, or another USB port")
            }
            throw V4L2Errors.from(errno: code, path: path, doing: "VIDIOC_STREAMON")
        }
    }

    /// A `v4l2_buffer` set up for single-planar MMAP capture.
    static func emptyBuffer() -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.type = V4L2Device.captureType
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        return buffer
    }

    /// Hands buffer `index` back to the driver (VIDIOC_QBUF); false on failure (errno set).
    func queue(index: UInt32) -> Bool {
        var buffer = Self.emptyBuffer()
        buffer.index = index
        return cv4l2_ioctl(fd, CV4L2_VIDIOC_QBUF, &buffer) == 0
    }

    /// STREAMOFF, munmap every buffer and free them in the driver (REQBUFS 0). Errors are
    /// ignored: after an unplug every call fails with ENODEV, and the memory must still go.
    mutating func stop() {
        var type = Int32(V4L2Device.captureType)
        _ = cv4l2_ioctl(fd, CV4L2_VIDIOC_STREAMOFF, &type)
        for mapping in mappings { munmap(mapping.address, mapping.length) }
        mappings.removeAll()
        var request = v4l2_requestbuffers()
        request.type = V4L2Device.captureType
        request.memory = V4L2_MEMORY_MMAP.rawValue
        _ = cv4l2_ioctl(fd, CV4L2_VIDIOC_REQBUFS, &request)
    }
}
