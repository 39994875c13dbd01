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
    /// resumes; with `retryAfterReconnect` false it is not queued: OpenTok drops such a
    /// signal, OTKit throws 1550 `unableToSendSignal` instead so the app knows it was
    /// not sent. Signals queued when the session then fails are dropped. A signal sent
    /// just before the path was found lost, whose delivery the router had not confirmed,
    /// is sent once more after the resume (with `retryAfterReconnect`); it carries its
    /// id, so the router delivers it only if the first copy never reached it.
    public func signal(type: String?, string: String?, connection: OTConnection? = nil,
                       retryAfterReconnect: Bool = true) throws(OTError) {
        let type = type ?? ""
        let data = string ?? ""
        try SignalValidation.validate(type: type, data: data)
        let request = SignalRequest(type: type, data: data, to: connection?.connectionId)
        let queued = try lock.withTypedLock { () throws(OTError) -> Bool in
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
            if state.status == .reconnecting, !retryAfterReconnect {
                throw OTError(.unableToSendSignal, "the session is reconnecting and retryAfterReconnect is false: not sent")
            }
            guard state.status == .reconnecting else { return false }
            state.queuedSignals.append(QueuedSignal(request: request, retryAfterReconnect: true, isResend: false))
            return true
        }
        if queued { log.add("signal queued until reconnected"); return }
        let signal = QueuedSignal(request: request, retryAfterReconnect: retryAfterReconnect, isResend: false)
        work.async { self.transmitSignal(signal) }
    }

    /// Sends a signal on the current channel. Work queue only. A signal gets its id when
    /// it is first sent, so ids rise in the order the router receives them (it drops an
    /// id at or below the last it delivered). If the path is down, or is lost before the
    /// router confirms it (the channel answers 1022), it waits for the resume
    /// (`retryAfterReconnect`), at most once for a signal that was already sent.
    func transmitSignal(_ signal: QueuedSignal) {
        guard let channel, channel.isOpen else {
            // The path dropped between the check and now: queue like a reconnecting send.
            if signal.retryAfterReconnect { lock.withLock { state.queuedSignals.append(signal) } }
            return
        }
        var signal = signal
        if signal.request.id == nil {
            signal.request.id = lock.withLock { () -> Int in
                state.lastSignalId += 1
                return state.lastSignalId
            }
        }
        channel.request(.signal(signal.request)) { [weak self] reply in
            guard let self, case .error(let error) = reply else { return }
            guard error.code == Int(OTSessionErrorCode.connectionDropped.rawValue) else {
                self.deliver(.didFail(OTError(sessionCode: error.code, error.message)))
                return
            }
            // Unconfirmed when the path was lost: it may or may not have reached the router.
            guard signal.retryAfterReconnect, !signal.isResend else {
                self.log.add("signal \(signal.request.id ?? 0) unconfirmed when the path was lost; not sent again")
                return
            }
            self.lock.withLock { self.state.queuedSignals.append(QueuedSignal(request: signal.request, retryAfterReconnect: true, isResend: true)) }
            self.log.add("signal \(signal.request.id ?? 0) unconfirmed when the path was lost; sent again after the resume")
        }
    }

    /// Stores a report of this client's recent stats and logs with the router and
    /// returns the id it is stored under (`reportIssue:`). Blocks the caller for one
    /// round trip to the router (at most 5 s), like OpenTok's synchronous call; the
    /// `async` variant does not block. The report carries a client-made id (a UUID) that
    /// a router may store it under; the id returned is the one the router confirms.
    /// Throws 1010 when not connected, 1021 when the router does not confirm in time, or
    /// the router's refusal.
    public func reportIssue() throws(OTError) -> String {
        guard sessionConnectionStatus == .connected else { throw OTError(.notConnected, "reportIssue needs a connected session") }
        let issueId = UUID().uuidString.lowercased()
        let done = DispatchSemaphore(value: 0)
        let outcome = Box<Result<String, OTError>?>(nil)
        let outcomeLock = NSLock()
        work.async {
            let report = IssueReport(description: "", stats: self.statsLines(), logs: self.log.lines(), issueId: issueId)
            let sent = self.channel?.request(.reportIssue(report), answerOnClose: true) { reply in
                let result: Result<String, OTError>
                switch reply {
                case .issueReported(let stored): result = .success(stored)
                case .error(let error): result = .failure(OTError(sessionCode: error.code, error.message))
                default: result = .failure(OTError(OTSessionErrorCode.internalError, "unexpected reply to reportIssue"))
                }
                outcomeLock.withLock { outcome.value = result }
                done.signal()
            } ?? false
            if !sent {
                outcomeLock.withLock { outcome.value = .failure(OTError(.notConnected, "the session is not connected")) }
                done.signal()
            }
        }
        guard done.wait(timeout: .now() + 5) == .success, let result = outcomeLock.withLock({ outcome.value }) else {
            throw OTError(.connectionTimeout, "the router did not confirm the issue report within 5 s")
        }
        return try result.get()
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

/// A signal waiting for the session to resume.
struct QueuedSignal: Sendable {
    /// What goes on the wire (its id set once first sent).
    var request: SignalRequest
    /// Whether it may be sent after a reconnection (`retryAfterReconnect`).
    var retryAfterReconnect: Bool
    /// It was sent once already (its delivery unconfirmed): this is its one resend.
    var isResend: Bool
}
