import Foundation
import OTNet

/// A failure of the Chromium harness, with a sentence a person can act on (the browser's
/// output tail is added by ``ChromiumBrowser`` where it helps).
public struct ChromiumError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// One DevTools-protocol connection (JSON over WebSocket, OTNet's client) to a browser:
/// numbered commands answered by id, and events handed to `onEvent`. With flattened
/// sessions (`Target.attachToTarget` with `flatten: true`) a page's commands and events
/// carry its `sessionId` on the same socket. Commands block the calling thread until
/// their answer or their deadline; events arrive on the socket's service thread.
/// Cost: one WebSocket client (one thread); a JSON encode and decode per message.
final class ChromiumDevTools: @unchecked Sendable {
    /// An event: the flattened session it belongs to (nil: the browser's), the method
    /// (`Runtime.consoleAPICalled`, ...) and its parameters.
    typealias Event = (sessionId: String?, method: String, params: [String: Any])

    private let condition = NSCondition()
    private var nextId = 1
    private var answers: [Int: [String: Any]] = [:]
    private var opened = false
    private var closedReason: String?
    private var client: WebSocketClient?
    private let onEvent: @Sendable (Event) -> Void

    /// Connects to `url` (`ws://127.0.0.1:port/devtools/browser/…`) and waits up to
    /// `timeout` seconds for the socket to open.
    init(url: String, timeout: Double, onEvent: @escaping @Sendable (Event) -> Void) throws(ChromiumError) {
        self.onEvent = onEvent
        do {
            client = try WebSocketClient(
                url: url,
                onOpen: { [weak self] in self?.update { $0.opened = true } },
                onText: { [weak self] text in self?.received(text) },
                onClose: { [weak self] failure in
                    self?.update { $0.closedReason = $0.closedReason ?? (failure ?? "the browser closed the DevTools socket") }
                })
        } catch {
            throw ChromiumError("cannot open the DevTools socket \(url): \(error.message)")
        }
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !opened && closedReason == nil {
            if !condition.wait(until: deadline) { break }
        }
        if let closedReason { throw ChromiumError("DevTools socket \(url) closed while opening: \(closedReason)") }
        if !opened { throw ChromiumError("DevTools socket \(url) did not open within \(timeout) s") }
    }

    /// Sends `method` with `params` (to the page of `sessionId`, or the browser) and waits
    /// up to `timeout` seconds for its `result`. A protocol error, a closed socket or the
    /// deadline throws, naming the method.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:], sessionId: String? = nil, timeout: Double = 30) throws(ChromiumError) -> [String: Any] {
        condition.lock()
        let id = nextId
        nextId += 1
        let closed = closedReason
        condition.unlock()
        if let closed { throw ChromiumError("\(method): the DevTools socket is closed (\(closed))") }
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let sessionId { message["sessionId"] = sessionId }
        guard let data = try? JSONSerialization.data(withJSONObject: message), let client,
              client.send(String(decoding: data, as: UTF8.self)) else {
            throw ChromiumError("\(method): cannot send the command")
        }
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while answers[id] == nil && closedReason == nil {
            if !condition.wait(until: deadline) { break }
        }
        guard let answer = answers.removeValue(forKey: id) else {
            if let closedReason { throw ChromiumError("\(method): the DevTools socket closed (\(closedReason))") }
            throw ChromiumError("\(method): no answer from the browser within \(timeout) s")
        }
        if let error = answer["error"] as? [String: Any] {
            throw ChromiumError("\(method): \(error["message"] as? String ?? "error") \(error["data"] as? String ?? "")")
        }
        return answer["result"] as? [String: Any] ?? [:]
    }

    /// Closes the socket (joins its thread). Idempotent.
    func close() {
        let client = update { state -> WebSocketClient? in
            let client = state.client
            state.client = nil
            state.closedReason = state.closedReason ?? "closed by the test"
            return client
        }
        client?.close()
    }

    private func received(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
        if let id = object["id"] as? Int {
            update { $0.answers[id] = object }
        } else if let method = object["method"] as? String {
            onEvent((object["sessionId"] as? String, method, object["params"] as? [String: Any] ?? [:]))
        }
    }

    @discardableResult
    private func update<T>(_ body: (ChromiumDevTools) -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body(self)
    }
}
