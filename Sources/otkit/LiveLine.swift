import Glibc

/// One status line: rewritten in place on a terminal, a new line each time otherwise
/// (logs and pipes get every report).
final class LiveLine {
    private let isTerminal = isatty(STDOUT_FILENO) == 1
    private var shown = false

    func show(_ text: String) {
        if isTerminal {
            print("\r\u{1B}[K" + text, terminator: "")
            fflush(nil)  // all streams: stdio's `stdout` global is not Sendable
        } else {
            print(text)
        }
        shown = true
    }

    func finish() {
        if isTerminal && shown { print("") }
    }
}
