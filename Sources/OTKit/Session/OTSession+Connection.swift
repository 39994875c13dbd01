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
        channel.onEvent = { [weak self, weak channel] message, seq in self?.received(message, seq: seq, on: channel) }
        channel.onMalformed = { [weak self] text in self?.log.add("dropped a router message: \(text)") }
        channel.onLost = { [weak self] reason in self?.channelLost(reason: reason, resume: resume) }
        do { try channel.open(url: url, allowSelfSigned: settings.allowSelfSignedCertificates, factory: settings.transportFactory) } catch {
            channelLost(reason: error.message, resume: resume)
        }
    }

    private func channelOpened(_ channel: SignalingChannel, resume: Bool, answered: Box<Bool>) {
        let (token, connectionId, secret) = lock.withLock { (state.token ?? "", state.connection?.connectionId, state.resumeSecret) }
        let rejoin = resume && rejoining  // a fresh connection while reconnecting (OTSession+Rejoin.swift)
        if !resume || rejoin { lastEventSeq = 0 }  // a new connection: the router numbers its events afresh for it
        let handled = lastEventSeq
        // eventSeq says this client acknowledges events, so the router keeps what it has not
        // acknowledged and, on resume, sends again what followed `handled`.
        let request = ConnectRequest(apiKey: apiKey, token: token, resumeConnectionId: resume && !rejoin ? connectionId : nil,
                                     resumeSecret: resume && !rejoin ? secret : nil, eventSeq: handled)
        channel.request(.connect(request)) { [weak self] reply in
            answered.value = true
            guard let self else { return }
            if case .connected = reply {
                channel.startHeartbeat(interval: self.settings.heartbeatInterval, timeout: self.settings.heartbeatTimeout, acknowledged: handled)
            }
            switch reply {
            case .connected(let connected):
                self.noteClusterNodes(connected)
                self.resumeAttempts = 0
                self.currentBase = self.attemptBase
                if rejoin { self.rejoined(connected) } else if resume { self.resumed(connected) } else { self.connected(connected) }
            case .error(let error):
                if resume && error.code == Int(OTSessionErrorCode.connectionDropped.rawValue) { return }  // path lost again: onLost retries
                if resume && !rejoin && error.code == ErrorReply.rejoinCode { return self.rejoin(channel, error.message) }
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
            state.e2ee = reply.e2ee ?? false
            if state.e2ee { state.sealsMedia = true }  // never turned off again (no downgrade)
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
        if let archive = reply.archive {
            lock.withLock { state.activeArchiveId = archive.id }
            deliver(.archiveStarted(id: archive.id, name: archive.name.isEmpty ? nil : archive.name))
        }
        startStatsTimer()
        resolveConnectWaiters(nil)
    }

    private func connectFailed(_ error: OTError) {
        channel?.close()
        channel = nil
        lock.withLock {
            state.status = .failed  // OTSessionConnectionStatusFailed: the attempt met a fatal error
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

    func beginReconnecting() {
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

    func scheduleResumeAttempt(after delay: Double? = nil) {
        guard let deadline = reconnectDeadline else { return }
        if Date() >= deadline {
            giveUpReconnecting("could not reach the router again within the \(Int(lock.withLock { state.graceSeconds })) s grace period")
            return
        }
        work.asyncAfter(deadline: .now() + (delay ?? settings.reconnectRetryInterval)) { [weak self] in
            guard let self, self.sessionConnectionStatus == .reconnecting else { return }
            guard let url = self.nextResumeURL() else { return }
            self.openChannel(url: url, resume: true)
        }
    }

    /// Where the next resume attempt goes: the router the client was on first, then, in a
    /// cluster, each other router in turn (any of them reaches the session's owner).
    /// Work queue only.
    func nextResumeURL() -> String? {
        let bases = [settings.routerURL] + clusterNodes
        let start = bases.firstIndex(of: currentBase ?? settings.routerURL) ?? 0
        let base = bases[(start + resumeAttempts) % bases.count]
        resumeAttempts += 1
        attemptBase = base
        return settings.webSocketURL(sessionId: sessionId, base: base)
    }

    /// The router is draining: leave it and resume through another router of the cluster
    /// (the same path as a lost socket: `sessionDidBeginReconnecting`, then
    /// `sessionDidReconnect`). Work queue only.
    func moveToAnotherRouter(_ move: MoveEvent) {
        guard sessionConnectionStatus == .connected else { return }
        let nodes = move.nodes.filter { ($0.hasPrefix("http://") || $0.hasPrefix("https://")) && $0.utf8.count <= 512 }.prefix(64)
        if !nodes.isEmpty { clusterNodes = Array(nodes) }
        log.add("the router asks this client to move (\(move.reason)); \(clusterNodes.count) other routers known")
        channel?.close()
        resumeAttempts = 1  // the first attempt goes to the next router, not this one
        beginReconnecting()
    }

    /// Keeps the cluster's router list of a connect or resume reply: http(s) URLs only, at most 64.
    func noteClusterNodes(_ reply: ConnectedReply) {
        guard let nodes = reply.clusterNodes else { return }
        clusterNodes = Array(nodes.filter { ($0.hasPrefix("http://") || $0.hasPrefix("https://")) && $0.utf8.count <= 512 }.prefix(64))
            .filter { settings.webSocketURL(sessionId: sessionId, base: $0) != settings.webSocketURL(sessionId: sessionId) }
    }

    /// Back with the same connection: `sessionDidReconnect`, then the events missed while
    /// away as the router replays them after this reply (in the order they happened, so
    /// signals others sent meanwhile arrive now, as the reference says), then a check of
    /// the state against the reply (`reconcile`). Signals queued or unconfirmed are sent
    /// (in the order they were made).
    private func resumed(_ reply: ConnectedReply) {
        let (proceed, queued, subscribers) = lock.withLock { () -> (Bool, [QueuedSignal], [OTSubscriberKit]) in
            guard state.status == .reconnecting, reply.connection.connectionId == state.connection?.connectionId else {
                return (false, [], [])
            }
            state.status = .connected
            state.resumeSecret = reply.resumeSecret
            state.capabilities = OTSessionCapabilities(reply.capabilities)
            let queued = state.queuedSignals
            state.queuedSignals = []
            return (true, queued, state.subscribers)
        }
        guard proceed else {
            giveUpReconnecting("the router resumed another connection")
            return
        }
        reconnectDeadline = nil
        deliver(.didReconnect)
        for subscriber in subscribers {
            subscriber.resumedWithoutOwnerLeg()  // a leg another router served stays "disconnected" until made again
            subscriber.reportReconnected()
        }
        let replayed = max(0, reply.replayedEvents ?? 0)
        if replayed == 0 { reconcile(with: reply) } else { pendingReconciliation = (reply, replayed) }
        // Those sent once and unconfirmed first (by id: the order they were first sent),
        // then those never sent, in the order they were made.
        let resends = queued.filter { $0.request.id != nil }.sorted { ($0.request.id ?? 0) < ($1.request.id ?? 0) }
        for signal in resends + queued.filter({ $0.request.id == nil }) { transmitSignal(signal) }
        // Unpublish/unsubscribe requests that waited for the resume (or lost their answer).
        resumeConfirmedRequests(ownStreams: reply.streams.filter { $0.connectionId == reply.connection.connectionId })
        // Preferences set while the path was down never reached the router: say them again.
        for subscriber in subscribers { subscriber.resendPreferences() }
        log.add("resumed; \(replayed) missed events follow; \(queued.count) queued signals sent")
    }

    /// One router event off the channel: handled once (an event numbered at or below the
    /// last handled one is a copy), acknowledged, and counted toward a pending
    /// reconciliation. Work queue only.
    private func received(_ message: ServerMessage, seq: Int?, on channel: SignalingChannel?) {
        if let seq, seq <= lastEventSeq {
            log.add("dropped a copy of event \(seq)")
        } else {
            handle(message)
            if let seq {
                lastEventSeq = seq
                channel?.eventHandled(seq)
            }
        }
        if let pending = pendingReconciliation {
            if pending.remaining <= 1 {
                pendingReconciliation = nil
                reconcile(with: pending.reply)
            } else {
                pendingReconciliation = (pending.reply, pending.remaining - 1)
            }
        }
    }

    /// Brings connections, streams, the archive and the session mute state in line with a
    /// resume reply, firing the delegate calls for each difference in the order the router
    /// would have sent them (streams gone, connections gone, connections new, streams new,
    /// archive, mute). After a complete replay there is nothing to do; it matters when the
    /// router replayed nothing. Work queue only.
    func reconcile(with reply: ConnectedReply) {
        let ownId = reply.connection.connectionId
        let others = reply.connections.filter { $0.connectionId != ownId }
        let (oldStreams, oldConnections, archiveId, muted) = lock.withLock {
            (state.streams, state.connections, state.activeArchiveId, state.forceMuteAllActive)
        }
        let presentStreams = Set(reply.streams.map(\.streamId))
        let presentConnections = Set(others.map(\.connectionId))
        for (id, stream) in oldStreams.sorted(by: { $0.key < $1.key }) where !presentStreams.contains(id) {
            removeStream(id, fallback: stream)
        }
        for (id, _) in oldConnections.sorted(by: { $0.key < $1.key }) where !presentConnections.contains(id) {
            handle(.connectionDestroyed(connectionId: id, reason: "networkDisconnected"))
        }
        for wire in others where oldConnections[wire.connectionId] == nil { handle(.connectionCreated(wire)) }
        for wire in reply.streams where wire.connectionId != ownId && oldStreams[wire.streamId] == nil { addStream(wire) }
        if archiveId != reply.archive?.id {
            if let archiveId { handle(.archiveStopped(archiveId: archiveId)) }
            if let archive = reply.archive { handle(.archiveStarted(archive)) }
        }
        if muted != reply.forceMuteAll { handle(.muteForced(streamId: nil, active: reply.forceMuteAll)) }
    }

    func giveUpReconnecting(_ reason: String) {
        reconnectDeadline = nil
        finishDisconnect(error: OTError(.connectionDropped, reason))
    }

    /// Tears everything down and tells the app. A lost session (`error` given): the
    /// subscribed streams' `session(_:streamDestroyed:)` (as the reference says when a
    /// client cannot reconnect), then `error`, and the status ends `.failed`. Then
    /// publisher `streamDestroyed`, then `sessionDidDisconnect`. Idempotent.
    func finishDisconnect(error: OTError?) {
        let (wasActive, publisher, subscribers, queued) = lock.withLock { () -> (Bool, OTPublisherKit?, [OTSubscriberKit], [QueuedSignal]) in
            let active = state.status != .notConnected && state.status != .failed
            let publisher = state.publisher
            let subscribers = state.subscribers
            let queued = state.queuedSignals
            // The secret and the sealing stay with the OTSession: a later connect of this
            // object still seals, whatever that router says.
            let (secrets, seals) = (state.encryptionSecrets, state.sealsMedia)
            state = State()
            (state.encryptionSecrets, state.sealsMedia) = (secrets, seals)
            if active && error != nil { state.status = .failed }
            return (active, publisher, subscribers, queued)
        }
        guard wasActive else { return }
        channel?.close()
        channel = nil
        pendingReconciliation = nil
        statsTimer?.cancel()
        statsTimer = nil
        for subscriber in subscribers { subscriber.detach() }
        if error != nil {
            var told = Set<String>()
            for subscriber in subscribers where told.insert(subscriber.stream.streamId).inserted { deliver(.streamDestroyed(subscriber.stream)) }
        }
        for signal in queued { completeSignal(signal.completion, OTError(.notConnected, "the session ended before the signal was sent")) }
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
