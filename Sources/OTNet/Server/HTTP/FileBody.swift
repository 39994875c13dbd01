import Glibc

/// A file being sent as a response body (`HTTPResponse.bodyFile`): its descriptor and the
/// bytes still to send, read `HTTPResponse.fileChunkSize` at a time into a connection's
/// output. The size is taken when it is opened (the Content-Length sent); the descriptor
/// closes with it. Service thread only. Cost: one descriptor; per chunk one `read`.
final class FileBody {
    private let descriptor: Int32
    /// Bytes not yet read.
    private(set) var remaining: Int

    /// Opens `path` for reading; nil when it cannot be opened or is not a regular file.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        remaining = Int(info.st_size)
    }

    deinit { close(descriptor) }

    /// Appends the next chunk (at most `fileChunkSize`, at most what remains) to `output`.
    /// False when the file ended early or the read failed.
    func read(into output: inout [UInt8]) -> Bool {
        let want = min(remaining, HTTPResponse.fileChunkSize)
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: want))
        var filled = 0
        while filled < want {
            let count = output.withUnsafeMutableBytes { raw in
                Glibc.read(descriptor, raw.baseAddress! + start + filled, want - filled)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                output.removeLast(want)
                return false
            }
            filled += count
        }
        remaining -= want
        return true
    }
}
