import Foundation
import OTSignaling

/// The signaling life cycle: connect, resume after a lost path, disconnect. Work queue only.
extension OTSession {
    func openChannel(url: String, resume: Bool) {
        channel?.close()
        let channel = SignalingChannel(queue: work)
        self.channel = channel
        let answered = Box(false)
        channel.onOpen = { [weak self, weak channel] in
            guard let self, let channel else { return }
            self.channelOpened(channel, resume: resume, answered: answered)
        }
        // A path that accepts the connection but never answers (a dead network behind a
        // live TCP endpoint, a stuck router): resume attempts are retried after the
        // heartbeat timeout; a first connect fails with 1021 after 10 s at least.
        let limit = resume ? settings.heartbeatTimeout : max(settings.heartbeatTimeout, 10)
        work.asyncAfter(deadline: .now() + limit) { [weak self, weak channel] in
            guard let self, let channel, !answered.value, !channel.isClosed, self.channel === channel else { return }
            channel.close()
            if resume { self.scheduleResumeAttempt() }
            else if self.sessionConnectionStatus == .connecting {
                self.connectFailed(OTError(.connectionTimeout, "the router did not answer within \(limit) s"))
            }
        }
        channel.onEvent = { [weak self] message in self?.handle(message) }
        channel.onMalformed = { [weak self] text in self?.log.add("dropped a router message: \(text)") }
        channel.onLost = { [weak self] reason in self?.channelLost(reason: reason, resume: resume) }
        do { try channel.open(url: url, allowSelfSigned: settings.allowSelfSignedCertificates, factory: settings.transportFactory) } catch {
            channelLost(reason: error.message, resume: resume)
        }
    }

    private func channelOpened(_ channel: SignalingChannel, resume: Bool, answered: Box<Bool>) {
        let (token, connectionId, secret) = lock.withLock { (state.token ?? "", state.connection?.connectionId, state.resumeSecret) }
        let request = ConnectRequest(apiKey: apiKey, token: token,
                                     resumeConnectionId: resume ? connectionId : nil, resumeSecret: resume ? secret : nil)
        channel.request(.connect(request)) { [weak self] reply in
            answered.value = true
            guard let self else { return }
            if case .connected = reply { channel.startHeartbeat(interval: self.settings.heartbeatInterval, timeout: self.settings.heartbeatTimeout) }
            switch reply {
            case .connected(let connected):
                if resume { self.resumed(connected) } else { self.connected(connected) }
            case .error(let error):
                if resume && error.code == Int(OTSessionErrorCode.connectionDropped.rawValue) { return }  // path lost again: onLost retries
                if resume { self.giveUpReconnecting("the router refused to resume: \(error.message) (\(error.code))") }
                else { self.connectFailed(OTError(sessionCode: error.code, error.message)) }
            default:
                self.connectFailed(OTError(OTSessionErrorCode.internalError, "unexpected reply to connect"))
            }
        }
    }

    private func connected(_ reply: ConnectedReply) {
        let own = OTConnection(reply.connection)
        let others = reply.connections.filter { $0.connectionId != own.connectionId }.map(OTConnection.init)
        let proceed = lock.withLock { () -> Bool in
            guard state.status == .connecting else { return false }
            state.status = .connected
            state.connection = own
            state.capabilities = OTSessionCapabilities(reply.capabilities)
            state.resumeSecret = reply.resumeSecret
            state.graceSeconds = reply.reconnectGraceMilliseconds > 0 ? Double(reply.reconnectGraceMilliseconds) / 1000 : settings.reconnectGrace
            state.forceMuteAllActive = reply.forceMuteAll
            state.relayed = reply.relayed
            for connection in others { state.connections[connection.connectionId] = connection }
            return true
        }
        guard proceed else { channel?.close(); return }
        log.add("connected as \(own.connectionId)")
        deliver(.didConnect)
        if !settings.connectionEventsSuppressed {
            for connection in others { deliver(.connectionCreated(connection)) }
        }
        for wire in reply.streams where wire.connectionId != own.connectionId { addStream(wire) }
        if let archive = reply.archive { deliver(.archiveStarted(id: archive.id, name: archive.name)) }
        startStatsTimer()
        resolveConnectWaiters(nil)
    }

    private func connectFailed(_ error: OTError) {
        channel?.close()
        channel = nil
        lock.withLock {
            state.status = .notConnected
            state.token = nil
        }
        log.add("connect failed: \(error)")
        deliver(.didFail(error))
        resolveConnectWaiters(error)
    }

    private func channelLost(reason: String?, resume: Bool) {
        let status = sessionConnectionStatus
        log.add("signaling path lost: \(reason ?? "closed")")
        switch status {
        case .connecting:
            connectFailed(OTError(.connectionFailed, "cannot reach the router at \(settings.routerURL): \(reason ?? "connection closed")"))
        case .connected:
            beginReconnecting()
        case .reconnecting:
            scheduleResumeAttempt()
        case .disconnecting:
            finishDisconnect(error: nil)
        default:
            break
        }
    }

    private func beginReconnecting() {
        let (grace, subscribers) = lock.withLock { () -> (Double, [OTSubscriberKit]) in
            state.status = .reconnecting
            return (state.graceSeconds, state.subscribers)
        }
        let deadline = Date().addingTimeInterval(grace)
        reconnectDeadline = deadline
        deliver(.didBeginReconnecting)
        // Give up at the deadline even if an attempt is still hanging.
        work.asyncAfter(deadline: .now() + grace) { [weak self] in
            guard let self, self.sessionConnectionStatus == .reconnecting, self.reconnectDeadline == deadline else { return }
            self.giveUpReconnecting("could not reach the router again within the \(Int(grace)) s grace period")
        }
        for subscriber in subscribers { subscriber.reportDisconnected() }
        scheduleResumeAttempt(after: 0)
    }

    private func scheduleResumeAttempt(after delay: Double? = nil) {
        guard let deadline = reconnectDeadline else { return }
        if Date() >= deadline {
            giveUpReconnecting("could not reach the router again within the \(Int(lock.withLock { state.graceSeconds })) s grace period")
            return
        }
        work.asyncAfter(deadline: .now() + (delay ?? settings.reconnectRetryInterval)) { [weak self] in
            guard let self, self.sessionConnectionStatus == .reconnecting else { return }
            guard let url = self.settings.webSocketURL(sessionId: self.sessionId) else { return }
            self.openChannel(url: url, resume: true)
        }
    }

    private func resumed(_ reply: ConnectedReply) {
        let (proceed, queued, subscribers, oldStreams) = lock.withLock { () -> (Bool, [SignalRequest], [OTSubscriberKit], [String: OTStream]) in
            guard state.status == .reconnecting, reply.connection.connectionId == state.connection?.connectionId else {
                return (false, [], [], [:])
            }
            state.status = .connected
            state.resumeSecret = reply.resumeSecret
            state.capabilities = OTSessionCapabilities(reply.capabilities)
            let queued = state.queuedSignals
            state.queuedSignals = []
            return (true, queued, state.subscribers, state.streams)
        }
        guard proceed else {
            giveUpReconnecting("the router resumed another connection")
            return
        }
        reconnectDeadline = nil
        deliver(.didReconnect)
        for subscriber in subscribers { subscriber.reportReconnected() }
        // Streams that came or went while we were away.
        let ownId = reply.connection.connectionId
        let present = Set(reply.streams.map(\.streamId))
        for (id, stream) in oldStreams where !present.contains(id) { removeStream(id, fallback: stream) }
        for wire in reply.streams where wire.connectionId != ownId && oldStreams[wire.streamId] == nil { addStream(wire) }
        for signal in queued { channel?.request(.signal(signal)) }
        resumeConfirmedRequests(ownStreams: reply.streams.filter { $0.connectionId == ownId })
        // Preferences set while the path was down never reached the router: say them again.
        for subscriber in subscribers { subscriber.resendPreferences() }
        log.add("resumed; \(queued.count) queued signals sent")
    }

    func giveUpReconnecting(_ reason: String) {
        reconnectDeadline = nil
        finishDisconnect(error: OTError(.connectionDropped, reason))
    }

    /// Tears everything down and tells the app: `error` first (if any), then publisher
    /// `streamDestroyed`, then `sessionDidDisconnect`. Idempotent.
    func finishDisconnect(error: OTError?) {
        let (wasActive, publisher, subscribers) = lock.withLock { () -> (Bool, OTPublisherKit?, [OTSubscriberKit]) in
            let active = state.status != .notConnected && state.status != .failed
            let publisher = state.publisher
            let subscribers = state.subscribers
            state = State()
            return (active, publisher, subscribers)
        }
        guard wasActive else { return }
        channel?.close()
        channel = nil
        statsTimer?.cancel()
        statsTimer = nil
        for subscriber in subscribers { subscriber.detach() }
        if let error { deliver(.didFail(error)) }
        endConfirmedRequests()
        publisher?.sessionEnded(self)
        deliver(.didDisconnect)
        resolveConnectWaiters(error ?? OTError(.notConnected, "disconnected"))
    }

    func resolveConnectWaiters(_ error: OTError?) {
        let waiters = connectWaiters
        connectWaiters = []
        for waiter in waiters {
            if let error { waiter.resume(throwing: error) } else { waiter.resume() }
        }
    }

    // MARK: - Streams

    func addStream(_ wire: WireStream) {
        let stream = lock.withLock { () -> OTStream in
            let connection = state.connections[wire.connectionId]
                ?? OTConnection(connectionId: wire.connectionId, creationTime: Date(timeIntervalSince1970: Double(wire.creationTime) / 1000), data: nil)
            let stream = OTStream(wire, connection: connection, session: self)
            state.streams[wire.streamId] = stream
            return stream
        }
        deliver(.streamCreated(stream))
    }

    func removeStream(_ streamId: String, fallback: OTStream? = nil) {
        let (stream, subscribers) = lock.withLock { () -> (OTStream?, [OTSubscriberKit]) in
            let stream = state.streams.removeValue(forKey: streamId) ?? fallback
            let gone = state.subscribers.filter { $0.stream.streamId == streamId }
            state.subscribers.removeAll { $0.stream.streamId == streamId }
            return (stream, gone)
        }
        for subscriber in subscribers { subscriber.detach() }
        if let stream { deliver(.streamDestroyed(stream)) }
    }
}

/// A mutable flag shared by closures on the work queue.
final class Box<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

extension OTError {
    /// A session error from a router code (kept even when OTKit has no case for it).
    init(sessionCode code: Int, _ message: String) {
        self.init(domain: .session, code: Int32(truncatingIfNeeded: code), message: message)
    }
}
