import CLibWebSockets
import Glibc

/// libwebsockets logs through one process-wide setting. OTNet keeps errors only (no
/// banner, no per-connection notices) and writes them to stderr with an `[lws]` prefix.
/// Only the WebSocket client uses lws now (the server is OTNet's own).
enum LWSLogging {
    private static let installed: Void = {
        lws_set_log_level(Int32(LLL_ERR), { _, line in
            guard let line else { return }
            _ = write(STDERR_FILENO, "[lws] ", 6)
            _ = write(STDERR_FILENO, line, strlen(line))
        })
    }()

    /// Sets the log level once; call before every `lws_create_context`.
    static func install() { _ = installed }
}
