import Foundation

/// One tab of a ``ChromiumBrowser``: navigate it, evaluate JavaScript in it (promises
/// awaited, results returned by value as JSON), wait for a condition, and read what it
/// logged (`console.*` calls and uncaught exceptions, collected from the moment the tab
/// opened). Calls block the calling thread; each has a deadline. Tests only.
public final class ChromiumPage: @unchecked Sendable {
    /// The DevTools target id of the tab.
    public let targetId: String
    let sessionId: String
    private let browser: ChromiumBrowser  // kept alive while a tab is in use
    private let lock = NSLock()
    private var console: [String] = []

    init(browser: ChromiumBrowser, targetId: String, sessionId: String) {
        self.browser = browser
        self.targetId = targetId
        self.sessionId = sessionId
    }

    /// What the page logged so far, one line per call: `"log: text"`, `"error: text"`,
    /// `"exception: text"`. Cost: a copy of the list.
    public var consoleMessages: [String] { lock.withLock { console } }

    /// Loads `url` and waits (up to `timeout` seconds) until its document has loaded
    /// (`document.readyState == "complete"`). A navigation error (refused connection, 404
    /// is not one) throws.
    public func navigate(_ url: String, timeout: Double = 30) throws(ChromiumError) {
        let result = try call("Page.navigate", ["url": url], timeout: timeout)
        if let error = result["errorText"] as? String, !error.isEmpty {
            throw failure("navigating to \(url) failed: \(error)")
        }
        try waitFor("document.readyState === 'complete' && location.href !== 'about:blank'", timeout: timeout,
                    what: "\(url) to load")
    }

    /// Evaluates `expression` (a promise is awaited) and decodes its value, returned by
    /// value as JSON, as `T` (`undefined` reads as JSON null). A thrown exception, a
    /// rejected promise, a value that does not decode as `T` or the deadline throws.
    public func evaluate<T: Decodable>(_ expression: String, as type: T.Type = T.self, timeout: Double = 30) throws(ChromiumError) -> T {
        let json = try evaluateJSON(expression, timeout: timeout)
        do { return try JSONDecoder().decode(T.self, from: Data(json.utf8)) } catch {
            throw failure("the value of `\(expression.prefix(200))` is not a \(T.self): \(json.prefix(500))")
        }
    }

    /// Evaluates `expression` for its effect (a promise is awaited); its value is ignored.
    public func run(_ expression: String, timeout: Double = 30) throws(ChromiumError) {
        _ = try evaluateJSON(expression, timeout: timeout)
    }

    /// Evaluates `expression` and returns its value as JSON text (`null` for undefined).
    public func evaluateJSON(_ expression: String, timeout: Double = 30) throws(ChromiumError) -> String {
        let result = try call("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true,
                                                   "timeout": Int(timeout * 1000)], timeout: timeout + 5)
        if let details = result["exceptionDetails"] as? [String: Any] {
            let exception = details["exception"] as? [String: Any]
            let text = exception?["description"] as? String ?? (exception?["value"]).map { "\($0)" } ?? details["text"] as? String ?? "exception"
            throw failure("`\(expression.prefix(200))` threw: \(text)")
        }
        guard let remote = result["result"] as? [String: Any], let value = remote["value"] else { return "null" }
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) else {
            throw failure("the value of `\(expression.prefix(200))` is not JSON")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Polls `condition` (a boolean JavaScript expression) every `interval` seconds until
    /// it is true; after `timeout` seconds throws, naming `what` and the console's tail.
    public func waitFor(_ condition: String, timeout: Double = 30, interval: Double = 0.05, what: String? = nil) throws(ChromiumError) {
        let deadline = Date().addingTimeInterval(timeout)
        var lastError: ChromiumError?
        while true {
            do {
                if try evaluate("Boolean(\(condition))", as: Bool.self, timeout: max(1, deadline.timeIntervalSinceNow)) { return }
                lastError = nil
            } catch {
                lastError = error  // e.g. the page is between documents: try again
            }
            if Date() >= deadline {
                throw failure("waited \(timeout) s for \(what ?? "`\(condition)`")"
                                  + (lastError.map { "; last evaluation failed: \($0.description)" } ?? ""))
            }
            Thread.sleep(forTimeInterval: interval)
        }
    }

    /// Closes the tab. Errors are ignored (the browser may be gone).
    public func close() {
        _ = try? browser.devTools.call("Target.closeTarget", ["targetId": targetId], timeout: 10)
    }

    // MARK: - Internals

    func call(_ method: String, _ params: [String: Any] = [:], timeout: Double = 30) throws(ChromiumError) -> [String: Any] {
        do { return try browser.devTools.call(method, params, sessionId: sessionId, timeout: timeout) } catch {
            throw failure(error.description)
        }
    }

    /// An error saying `text`, with this page's console tail and the browser's output tail.
    func failure(_ text: String) -> ChromiumError {
        let console = consoleMessages.suffix(30).joined(separator: "\n")
        return ChromiumError("\(text)\n--- page console (last 30) ---\n\(console)\n--- browser output tail ---\n\(browser.outputTail(1500))")
    }

    /// A DevTools event for this page's session.
    func handle(method: String, params: [String: Any]) {
        switch method {
        case "Runtime.consoleAPICalled":
            let kind = params["type"] as? String ?? "log"
            let args = (params["args"] as? [[String: Any]] ?? []).map { argument -> String in
                if let value = argument["value"] { return value as? String ?? "\(value)" }
                return argument["description"] as? String ?? (argument["type"] as? String ?? "?")
            }
            lock.withLock { console.append("\(kind): \(args.joined(separator: " "))") }
        case "Runtime.exceptionThrown":
            let details = params["exceptionDetails"] as? [String: Any]
            let exception = details?["exception"] as? [String: Any]
            let text = exception?["description"] as? String ?? details?["text"] as? String ?? "exception"
            lock.withLock { console.append("exception: \(text)") }
        default:
            break
        }
    }
}
