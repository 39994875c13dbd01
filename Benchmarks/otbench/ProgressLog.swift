import Glibc

/// Progress lines for people, on stderr, so stdout stays clean for `--json`.
struct ProgressLog {
    /// Writes one line to stderr.
    func callAsFunction(_ line: String) {
        writeToStandardError(line + "\n")
    }
}

/// Writes text to file descriptor 2, unbuffered (so it interleaves sensibly with stdout).
func writeToStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
