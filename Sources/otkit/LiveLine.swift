import Glibc

/// One status line: rewritten in place on a terminal, a new line each time otherwise
/// (logs and pipes get every report).
final class LiveLine {
    private let isTerminal = isatty(STDOUT_FILENO) == 1
    private var shown = false

    func show(_ text: String) {
        if isTerminal {
            print("\r\u{1B}[K" + text, terminator: "")
        } else {
            print(text)
        }
        // Now, not when stdio's buffer fills: a log or pipe reader follows it live. All
        // streams: stdio's `stdout` global is not Sendable.
        fflush(nil)
        shown = true
    }

    func finish() {
        if isTerminal && shown { print("") }
    }
}
