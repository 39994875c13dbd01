import Foundation
import OTSignaling

extension OTSession {
    /// Sends a signal to every client (`connection` nil) or one
    /// (`signalWithType:string:connection:retryAfterReconnect:error:`).
    ///
    /// Checked in this order, each thrown synchronously: the type (≤ 128 characters of
    /// A–Z a–z 0–9 - _ ~, else 1461 `invalidSignalType`), the data (≤ 8192 bytes, else
    /// 1413 `signalDataTooLong`), the session (connected or reconnecting, else 1010
    /// `notConnected`), the token (publisheronly cannot signal: 1550), the target (a
    /// connection not in the session: 1550).
    ///
    /// While reconnecting the signal is queued and sent exactly once after the session
    /// resumes; with `retryAfterReconnect` false it is silently not sent, as in OpenTok
    /// (logged, and told to `notices` as `.signalNotSent`). Signals queued when the
    /// session then fails are dropped. A signal sent just before the path was found
    /// lost, whose delivery the router had not confirmed, is sent once more after the
    /// resume (with `retryAfterReconnect`); it carries its id, so the router delivers it
    /// only if the first copy never reached it. A refusal by the router (e.g. over the
    /// rate limit) is not a session failure: it goes to `notices` (`.signalRefused`),
    /// never to `session(_:didFailWithError:)`; use
    /// `signal(type:string:connection:retryAfterReconnect:completion:)` or `sendSignal`
    /// to hear it for this signal.
    public func signal(type: String?, string: String?, connection: OTConnection? = nil,
                       retryAfterReconnect: Bool = true) throws(OTError) {
        try signal(type: type, string: string, connection: connection, retryAfterReconnect: retryAfterReconnect, completion: nil)
    }

    /// As `signal(type:string:connection:retryAfterReconnect:)`, and `completion` (on
    /// `apiQueue`) gets the router's answer for this signal: nil once the router accepted
    /// it, else the refusal (1550 over the rate limit or to a connection that left; 1010
    /// when the session ended before it was sent; 1550 when it was not sent because the
    /// session was reconnecting and `retryAfterReconnect` is false). Called once unless a
    /// synchronous error is thrown (then never). Cost: one closure kept until the answer.
    public func signal(type: String?, string: String?, connection: OTConnection? = nil,
                       retryAfterReconnect: Bool = true, completion: (@Sendable (OTError?) -> Void)?) throws(OTError) {
        let type = type ?? ""
        let data = string ?? ""
        try SignalValidation.validate(type: type, data: data)
        let request = SignalRequest(type: type, data: data, to: connection?.connectionId)
        let queued = try lock.withTypedLock { () throws(OTError) -> Bool? in
            switch state.status {
            case .connected, .reconnecting: break
            default: throw OTError(.notConnected, "signal needs a connected session (it is \(state.status))")
            }
            if let capabilities = state.capabilities, !capabilities.canSignal {
                throw OTError(.unableToSendSignal, "this token's role cannot send signals")
            }
            if let target = connection?.connectionId, target != state.connection?.connectionId, state.connections[target] == nil {
                throw OTError(.unableToSendSignal, "connection \(target) is not in the session")
            }
            guard state.status == .reconnecting else { return false }
            guard retryAfterReconnect else { return nil }
            state.queuedSignals.append(QueuedSignal(request: request, completion: completion, retryAfterReconnect: true,
                                                    isResend: false))
            return true
        }
        guard let queued else {
            // OpenTok drops it without an error; OTKit also says so where the app can look.
            let error = OTError(.unableToSendSignal, "the session is reconnecting and retryAfterReconnect is false: not sent")
            work.async { self.notify(.signalNotSent, error); self.completeSignal(completion, error) }
            return
        }
        if queued { log.add("signal queued until reconnected"); return }
        let signal = QueuedSignal(request: request, completion: completion, retryAfterReconnect: retryAfterReconnect,
                                  isResend: false)
        work.async { self.transmitSignal(signal) }
    }

    /// Sends a signal and returns once the router accepted it; throws the synchronous
    /// errors of `signal(type:string:connection:retryAfterReconnect:)` and the router's
    /// refusal (see the completion form). Cost: one suspension until the answer.
    public func sendSignal(type: String?, string: String?, connection: OTConnection? = nil,
                           retryAfterReconnect: Bool = true) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do throws(OTError) {
                try signal(type: type, string: string, connection: connection, retryAfterReconnect: retryAfterReconnect) { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Sends a signal on the current channel; the router's answer goes to the signal's
    /// completion, and a refusal (not a lost path) to `notices`. Work queue only. A
    /// signal gets its id when it is first sent, so ids rise in the order the router
    /// receives them (it drops an id at or below the last it delivered). If the path is
    /// down, or is lost before the router confirms it (the channel answers 1022), it
    /// waits for the resume (`retryAfterReconnect`), at most once for a signal that was
    /// already sent.
    func transmitSignal(_ signal: QueuedSignal) {
        guard let channel, channel.isOpen else {
            // The path dropped between the check and now: queue like a reconnecting send.
            if signal.retryAfterReconnect {
                lock.withLock { state.queuedSignals.append(signal) }
            } else {
                completeSignal(signal.completion,
                               OTError(.unableToSendSignal, "the session is reconnecting and retryAfterReconnect is false: not sent"))
            }
            return
        }
        var signal = signal
        if signal.request.id == nil {
            signal.request.id = lock.withLock { () -> Int in
                state.lastSignalId += 1
                return state.lastSignalId
            }
        }
        let sent = channel.request(.signal(signal.request), answerOnClose: signal.completion != nil) { [weak self] reply in
            guard let self else { return }
            guard case .error(let error) = reply else {
                self.completeSignal(signal.completion, nil)
                return
            }
            let refusal = OTError(sessionCode: error.code, error.message)
            guard error.code == Int(OTSessionErrorCode.connectionDropped.rawValue) else {
                if error.code != Int(OTSessionErrorCode.notConnected.rawValue) { self.notify(.signalRefused, refusal) }
                self.completeSignal(signal.completion, refusal)
                return
            }
            // Unconfirmed when the path was lost: it may or may not have reached the router.
            guard signal.retryAfterReconnect, !signal.isResend else {
                self.log.add("signal \(signal.request.id ?? 0) unconfirmed when the path was lost; not sent again")
                self.completeSignal(signal.completion, refusal)
                return
            }
            var resend = signal
            resend.isResend = true
            self.lock.withLock { self.state.queuedSignals.append(resend) }
            self.log.add("signal \(signal.request.id ?? 0) unconfirmed when the path was lost; sent again after the resume")
        }
        if !sent { completeSignal(signal.completion, OTError(.notConnected, "the session is not connected")) }
    }

    /// Calls a signal's completion on `apiQueue`, after what was delivered before.
    func completeSignal(_ completion: (@Sendable (OTError?) -> Void)?, _ error: OTError?) {
        guard let completion else { return }
        onApiQueue { completion(error) }
    }

    /// Sends a report of this client's recent stats and logs to the router and returns
    /// the id it is filed under (`reportIssue:`) at once, without waiting for the router:
    /// the id is made here (a UUID) and the router stores the report under it. A report
    /// the router does not store is told to `notices` (`.issueReportFailed`); the `async`
    /// variant waits for the router's confirmation instead. Throws 1010 when not
    /// connected. Cost: the stats and log lines copied once, one signaling message.
    public func reportIssue() throws(OTError) -> String {
        guard sessionConnectionStatus == .connected else { throw OTError(.notConnected, "reportIssue needs a connected session") }
        let issueId = UUID().uuidString.lowercased()
        work.async {
            let report = IssueReport(description: "", stats: self.statsLines(), logs: self.log.lines(), issueId: issueId)
            let sent = self.channel?.request(.reportIssue(report), answerOnClose: true) { reply in
                switch reply {
                case .issueReported(let stored) where stored == issueId: break
                case .issueReported(let stored): self.notify(.issueReportFailed, OTError(OTSessionErrorCode.internalError, "the router filed issue \(issueId) as \(stored)"))
                case .error(let error): self.notify(.issueReportFailed, OTError(sessionCode: error.code, error.message))
                default: self.notify(.issueReportFailed, OTError(OTSessionErrorCode.internalError, "unexpected reply to reportIssue"))
                }
            } ?? false
            if !sent { self.notify(.issueReportFailed, OTError(.notConnected, "the session is not connected")) }
        }
        return issueId
    }

    /// The publisher's and subscribers' counters as `name=value` lines.
    func statsLines() -> [String] {
        let (publisher, subscribers) = lock.withLock { (state.publisher, state.subscribers) }
        var lines: [String] = []
        if let publisher { lines += publisher.statsLines() }
        for subscriber in subscribers { lines += subscriber.statsLines() }
        return lines
    }
}

/// A signal waiting to be sent (the session reconnecting), with whoever wants its answer.
struct QueuedSignal: Sendable {
    /// What goes on the wire (its id set once first sent).
    var request: SignalRequest
    /// Told the router's answer (nil: nobody asked).
    var completion: (@Sendable (OTError?) -> Void)?
    /// Whether it may be sent after a reconnection (`retryAfterReconnect`).
    var retryAfterReconnect: Bool
    /// It was sent once already (its delivery unconfirmed): this is its one resend.
    var isResend: Bool
}
