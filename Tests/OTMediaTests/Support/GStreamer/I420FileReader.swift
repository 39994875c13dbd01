import Glibc
import OTMedia

/// Reads raw I420 frames of a known size, one at a time, from a file such as the one a
/// GStreamer receiver writes (`vp8dec ! video/x-raw,format=I420 ! filesink`): planes Y,
/// U, V with no padding, frame after frame. A trailing partial frame is ignored.
///
/// Test support. Cost per frame: row-sized `fread`s through stdio into the caller's
/// frame, no allocation.
final class I420FileReader {
    /// Frame width in pixels.
    let width: Int
    /// Frame height in pixels.
    let height: Int
    private var file: UnsafeMutablePointer<FILE>?

    /// Bytes per frame: width × height + 2 × ⌈width/2⌉ × ⌈height/2⌉.
    var frameBytes: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }

    /// Opens `path` for frames of `width` x `height`.
    init(path: String, width: Int, height: Int) throws(MediaError) {
        guard let file = fopen(path, "rb") else {
            throw MediaError(.noSuchDevice, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        self.file = file
        self.width = width
        self.height = height
    }

    deinit {
        if let file { fclose(file) }
    }

    /// Complete frames in the file (its size divided by `frameBytes`).
    var frameCount: Int {
        guard let file else { return 0 }
        var info = stat()
        guard fstat(fileno(file), &info) == 0 else { return 0 }
        return Int(info.st_size) / frameBytes
    }

    /// Reads the next frame into `frame` (reshaped to the reader's size; it must have room).
    /// Returns false at the end of the file.
    func read(into frame: VideoFrame) -> Bool {
        guard let file, frame.reshape(width: width, height: height) else { return false }
        for row in 0..<height where fread(frame.y + row * frame.strideY, 1, width, file) != width { return false }
        for plane in [frame.u, frame.v] {
            for row in 0..<frame.chromaHeight where fread(plane + row * frame.strideUV, 1, frame.chromaWidth, file) != frame.chromaWidth {
                return false
            }
        }
        return true
    }
}
