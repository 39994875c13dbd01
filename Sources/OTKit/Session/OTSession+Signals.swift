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
    /// not sent. Signals queued when the session then fails are dropped.
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
            guard state.status == .reconnecting else { return false }
            guard retryAfterReconnect else {
                throw OTError(.unableToSendSignal, "the session is reconnecting and retryAfterReconnect is false: not sent")
            }
            state.queuedSignals.append(request)
            return true
        }
        if queued { log.add("signal queued until reconnected"); return }
        work.async {
            guard let channel = self.channel, channel.isOpen else {
                // The path dropped between the check and now: queue like a reconnecting send.
                if retryAfterReconnect { self.lock.withLock { self.state.queuedSignals.append(request) } }
                return
            }
            channel.request(.signal(request)) { reply in
                if case .error(let error) = reply, error.code != Int(OTSessionErrorCode.connectionDropped.rawValue) {
                    self.deliver(.didFail(OTError(sessionCode: error.code, error.message)))
                }
            }
        }
    }

    /// Stores a report of this client's recent stats and logs with the router and
    /// returns its id (`reportIssue:`). The id is made here (a UUID) and sent with the
    /// report, so it is known at once; the router stores the report under it. Throws
    /// 1010 when not connected. Cost: one message of a few KB.
    public func reportIssue() throws(OTError) -> String {
        guard sessionConnectionStatus == .connected else { throw OTError(.notConnected, "reportIssue needs a connected session") }
        let issueId = UUID().uuidString.lowercased()
        work.async {
            let report = IssueReport(description: "", stats: self.statsLines(), logs: self.log.lines(), issueId: issueId)
            self.channel?.request(.reportIssue(report)) { reply in
                if case .issueReported(let stored) = reply, stored != issueId {
                    self.log.add("router stored the issue as \(stored), not \(issueId)")
                }
            }
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
