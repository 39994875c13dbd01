import Foundation

/// A headless Chromium (Debian's `chromium`) that a test starts, drives over the DevTools
/// protocol and closes: fake camera and microphone, loopback WebRTC allowed, its own
/// temporary profile. Open tabs with ``openPage()``; ``close()`` (also run by deinit) kills
/// the browser's whole process group and removes the profile, so a failing test leaves
/// nothing behind. Every wait has a generous deadline (CI machines are busy), and every
/// failure message ends with the tail of the browser's own output.
///
/// A machine without Chromium fails the test that asks for one (`scripts/install-deps.sh`
/// installs it); nothing is skipped.
///
/// Cost: a browser is ~10 processes and 200-400 MB; it starts in 1-6 s here. A tab is a
/// renderer process (~50 MB).
public final class ChromiumBrowser: @unchecked Sendable {
    /// The flags every browser gets (see docs/webrtc.md, "The JavaScript client and the
    /// Chromium harness"): headless, no sandbox (containers have no user namespaces), fake
    /// media devices granted without a prompt, 127.0.0.1 ICE candidates kept and shown
    /// as addresses (not mDNS names), autoplay allowed. `--remote-allow-origins=*` lets
    /// OTNet's WebSocket client (which sends an `Origin` header) attach to DevTools.
    public static let standardFlags = [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
        "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required",
        "--remote-allow-origins=*", "--no-first-run", "--no-default-browser-check",
    ]

    /// The temporary profile directory (removed by ``close()``).
    public let profileDirectory: String
    let devTools: ChromiumDevTools
    private let process: ChromiumProcess
    private let lock = NSLock()
    private var closed = false

    /// Where Chromium is: `chromium` (Debian) or `chromium-browser` on PATH, else nil.
    public static var executable: String? {
        Subprocess.which("chromium") ?? Subprocess.which("chromium-browser")
    }

    /// Starts a browser with ``standardFlags`` plus `extraFlags` and attaches to it.
    /// Waits up to `timeout` seconds for its DevTools port.
    /// - Throws: ``ChromiumError`` when Chromium is not installed, exits early or does
    ///   not open its DevTools port in time (with its output's tail).
    public init(extraFlags: [String] = [], timeout: Double = 60) throws(ChromiumError) {
        guard let executable = Self.executable else {
            throw ChromiumError("Chromium is not installed (no `chromium` on PATH): run scripts/install-deps.sh (Debian package `chromium`)")
        }
        let template = NSTemporaryDirectory() + "otkit-chromium-XXXXXX"
        var pattern = Array(template.utf8CString)
        guard mkdtemp(&pattern) != nil else { throw ChromiumError("cannot make a temporary profile directory under \(NSTemporaryDirectory())") }
        let profile = pattern.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        profileDirectory = profile
        let arguments = Self.standardFlags + extraFlags + ["--user-data-dir=\(profile)", "--remote-debugging-port=0", "about:blank"]
        let process: ChromiumProcess
        do {
            process = try ChromiumProcess(executable: executable, arguments: arguments, logPath: profile + ".log")
        } catch {
            try? FileManager.default.removeItem(atPath: profile)
            throw error
        }
        self.process = process
        let url: String
        do {
            url = try Self.devToolsURL(profile: profile, process: process, timeout: timeout)
        } catch {
            Self.tearDown(process, profile)
            throw error
        }
        let box = PageTable()
        do {
            devTools = try ChromiumDevTools(url: url, timeout: timeout) { event in
                guard let sessionId = event.sessionId else { return }
                box.page(sessionId)?.handle(method: event.method, params: event.params)
            }
        } catch {
            Self.tearDown(process, profile)
            throw ChromiumError("\(error.description)\n--- browser output tail ---\n\(process.outputTail())")
        }
        pageTable = box
    }

    private let pageTable: PageTable

    deinit { close() }

    /// Opens a new tab on `about:blank`, attached with its own DevTools session, with the
    /// Runtime and Page domains enabled (console messages are collected from now on).
    public func openPage(timeout: Double = 30) throws(ChromiumError) -> ChromiumPage {
        do throws(ChromiumError) {
            let created = try devTools.call("Target.createTarget", ["url": "about:blank"], timeout: timeout)
            guard let targetId = created["targetId"] as? String else { throw ChromiumError("Target.createTarget gave no targetId") }
            let attached = try devTools.call("Target.attachToTarget", ["targetId": targetId, "flatten": true], timeout: timeout)
            guard let sessionId = attached["sessionId"] as? String else { throw ChromiumError("Target.attachToTarget gave no sessionId") }
            let page = ChromiumPage(browser: self, targetId: targetId, sessionId: sessionId)
            pageTable.add(page)
            _ = try page.call("Runtime.enable", timeout: timeout)
            _ = try page.call("Page.enable", timeout: timeout)
            return page
        } catch {
            throw ChromiumError("cannot open a tab: \(error.description)\n--- browser output tail ---\n\(outputTail())")
        }
    }

    /// The last `bytes` of what the browser wrote to its standard output and error.
    public func outputTail(_ bytes: Int = 3000) -> String { process.outputTail(bytes) }

    /// Whether the browser's main process still runs.
    public var isRunning: Bool { process.isRunning }

    /// Process ids of the browser's processes still alive (its process group).
    public var livingProcesses: [Int32] { process.livingMembers() }

    /// Asks the browser to close, then kills its process group (whatever is left) and
    /// removes the profile directory and the output file. Idempotent; never throws.
    /// Cost: up to 2 s waiting for a polite exit.
    public func close() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        _ = try? devTools.call("Browser.close", timeout: 2)
        devTools.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Self.tearDown(process, profileDirectory)
    }

    private static func tearDown(_ process: ChromiumProcess, _ profile: String) {
        process.kill()
        try? FileManager.default.removeItem(atPath: profile)
        try? FileManager.default.removeItem(atPath: process.logPath)
    }

    /// Reads `<profile>/DevToolsActivePort` (port, then the browser target's path) once
    /// Chromium has written it.
    private static func devToolsURL(profile: String, process: ChromiumProcess, timeout: Double) throws(ChromiumError) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let file = profile + "/DevToolsActivePort"
        while Date() < deadline {
            if let text = try? String(contentsOfFile: file, encoding: .utf8) {
                let lines = text.split(whereSeparator: \.isNewline)
                if lines.count >= 2, let port = Int(lines[0]), (1...65535).contains(port) {
                    return "ws://127.0.0.1:\(port)\(lines[1])"
                }
            }
            if !process.isRunning {
                throw ChromiumError("Chromium exited before opening its DevTools port\n--- browser output tail ---\n\(process.outputTail())")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ChromiumError("Chromium did not write \(file) within \(timeout) s\n--- browser output tail ---\n\(process.outputTail())")
    }
}

/// The tabs by DevTools session id, shared with the event callback (which runs on the
/// DevTools socket's thread). Weak: a tab holds its browser, not the other way round.
final class PageTable: @unchecked Sendable {
    private struct Weak { weak var page: ChromiumPage? }
    private let lock = NSLock()
    private var pages: [String: Weak] = [:]

    func add(_ page: ChromiumPage) { lock.withLock { pages[page.sessionId] = Weak(page: page) } }
    func page(_ sessionId: String) -> ChromiumPage? { lock.withLock { pages[sessionId]?.page } }
}
