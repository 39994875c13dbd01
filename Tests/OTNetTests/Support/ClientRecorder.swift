import Foundation
import OTNet

/// Collects what a WebSocketClient reports, for tests.
final class ClientRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _opened = 0
    private var _texts: [String] = []
    private var _closes: [String?] = []

    var opened: Int { lock.withLock { _opened } }
    var texts: [String] { lock.withLock { _texts } }
    var closes: [String?] { lock.withLock { _closes } }

    func connect(_ url: String, allowSelfSigned: Bool = false) throws -> WebSocketClient {
        try WebSocketClient(
            url: url, allowSelfSignedCertificates: allowSelfSigned,
            onOpen: { [self] in lock.withLock { _opened += 1 } },
            onText: { [self] text in lock.withLock { _texts.append(text) } },
            onClose: { [self] failure in lock.withLock { _closes.append(failure) } })
    }
}

/// The number of threads in this process (entries of /proc/self/task).
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}
