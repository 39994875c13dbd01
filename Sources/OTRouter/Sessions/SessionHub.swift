import Foundation
import OTNet
import OTSignaling

/// The router's state and the one lock around it: sessions → connections, streams,
/// subscriptions, mute state; archives; issue reports; the open sockets. Signaling and
/// REST both act through it. Every public-facing operation takes the lock once, mutates,
/// queues its outgoing messages, releases the lock and then sends them (so no socket
/// call happens under the lock). Media-plane work that opens or joins something (a
/// subscriber leg: socket, buffers, SRTP; a stream's end: joining its thread) is queued
/// with `afterUnlock` and done once the lock is released, so one client's subscribe loop
/// never holds up another session's signaling; a subscribe reserves its place under the
/// lock and lands in a second, short locked step (a routed publish likewise).
final class SessionHub: @unchecked Sendable {
    let configuration: RouterConfiguration
    let media: any MediaForwarding
    let log: RouterLog
    let counters: MetricsCounters
    /// This router's place in a cluster of routers (Redis), nil when it runs alone.
    let cluster: ClusterNode?
    /// Proxying and REST forwarding to other nodes of the cluster, nil when it runs alone.
    let forwarding: ClusterForwarding?

    /// A socket the router has open, with what it is doing.
    struct PeerState {
        let peer: any WebSocketPeer
        /// The session id from the URL.
        let sessionId: String
        /// The connection it carries, once connected.
        var connectionId: String?
        var lastHeard: ContinuousClock.Instant
        /// The node that proxies this socket to us (its mark verified), nil for a direct client.
        var forwardedBy: String? = nil
        /// Placement was asked of Redis for this socket's connect already (no second time).
        var placed = false
    }

    /// Something to do once the lock is released.
    enum Action {
        case send(any WebSocketPeer, String)
        case close(any WebSocketPeer, UInt16, String)
    }

    private let lock = NSLock()
    // Everything below is guarded by `lock`.
    var sessions: [String: SessionRecord] = [:]
    var peers: [UInt64: PeerState] = [:]
    /// Connections waiting out their grace: connection id → session id.
    var detached: [String: String] = [:]
    /// Every change of a record is written to its `archive.json` (`SessionHub+ArchiveRecords`).
    var archives: [String: ArchiveRecord] = [:] { didSet { archivesChanged(from: oldValue) } }
    var archiveOrder: [String] = []
    /// Where archive records persist, and how many changes have been queued for writing.
    let archiveRecords: ArchiveRecordStore
    var archiveRecordVersion: UInt64 = 0
    /// The recorders of the running individual archives, by archive id.
    var recordings: [String: IndividualRecording] = [:]
    /// The composers of the running composed archives, by archive id.
    var composedRecordings: [String: ComposedRecording] = [:]
    /// Every archive's sink per stream, combined for the stream's forwarding thread.
    let recordingTaps = RecordingTaps()
    /// Signs and checks archive download links.
    let archiveLinks = ArchiveLinkSigner()
    var issues: [String: IssueRecord] = [:]
    var issueOrder: [String] = []
    private var outbox: [Action] = []
    private var deferred: [() -> Void] = []
    /// Connections per IP address, router-wide (`RouterLimits.connectionsPerAddress`).
    var connectionsByAddress: [String: Int] = [:]
    /// Subscriber legs being opened outside the lock (they count toward the socket limit).
    var pendingLegs = 0
    /// Events kept for a resume, by connection id (`SessionHub+EventLog`).
    var eventLogs: [String: EventLog] = [:]
    /// The last event sequence number given (router-wide).
    var eventSeq = 0
    /// The router is draining (`RouterService.drain`): no new clients or sessions.
    var draining = false

    /// How many issue reports are kept (the oldest is dropped first).
    static let issueCapacity = 256

    init(configuration: RouterConfiguration, media: any MediaForwarding, log: RouterLog, counters: MetricsCounters,
         cluster: ClusterNode? = nil) {
        self.configuration = configuration
        self.cluster = cluster
        forwarding = cluster.map { node in
            ClusterForwarding(cluster: node, projects: configuration.projects.map { ($0.apiKey, $0.apiSecret) }, log: log,
                              media: media as? MediaRouter, cascadeSecret: configuration.clusterSecret)
        }
        self.media = media
        self.log = log
        self.counters = counters
        archiveRecords = ArchiveRecordStore(root: configuration.effectiveArchiveDirectory)
        let adopted = Self.adoptArchiveRecords(configuration: configuration, store: archiveRecords, log: log)
        archives = Dictionary(adopted.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        archiveOrder = adopted.map(\.id)
        installQualityHandler()
        installLegEndedHandler()
    }

    /// Runs `body` under the lock, then performs the actions it queued.
    func perform<T>(_ body: () -> T) -> T {
        lock.lock()
        let result = body()
        let actions = outbox
        outbox.removeAll(keepingCapacity: true)
        let work = deferred
        deferred.removeAll()
        lock.unlock()
        for action in actions {
            switch action {
            case .send(let peer, let text): peer.send(text)
            case .close(let peer, let code, let reason): peer.close(code: code, reason: reason)
            }
        }
        for job in work { job() }
        return result
    }

    /// Queues `work` to run once the lock is released (after the queued messages), on the
    /// same thread. Under the lock; `work` may call `perform` again.
    func afterUnlock(_ work: @escaping () -> Void) { deferred.append(work) }

    // MARK: - Queueing (under the lock)

    func send(_ message: ServerMessage, requestId: Int? = nil, to peer: (any WebSocketPeer)?) {
        guard let peer else { return }
        outbox.append(.send(peer, SignalingCodec.encode(message, requestId: requestId)))
    }

    /// Queues already encoded text for `peer`.
    func send(text: String, to peer: any WebSocketPeer) {
        outbox.append(.send(peer, text))
    }

    func close(_ peer: any WebSocketPeer, code: UInt16 = 1000, reason: String) {
        outbox.append(.close(peer, code, reason))
    }

    /// Sends the event `message` to every connection of `session` except `except`: one
    /// text, numbered once, kept for those away or not yet acknowledging (`EventLog`).
    func broadcast(_ message: ServerMessage, in session: SessionRecord, except: String? = nil) {
        let seq = nextEventSeq()
        let text = SignalingCodec.encode(message, eventSeq: seq)
        for id in session.connectionOrder where id != except {
            guard let connection = session.connections[id] else { continue }
            keep(text, seq: seq, for: id)
            if let peer = connection.peer { outbox.append(.send(peer, text)) }
        }
    }

    // MARK: - Ids and time

    static func newID() -> String { UUID().uuidString.lowercased() }

    /// Whether a client-chosen id may name a stored record: UUID-shaped (hex digits and
    /// dashes, 8-4-4-4-12), so at most 64 characters and safe in a REST path.
    static func isClientIssueID(_ id: String) -> Bool {
        id.utf8.count <= 64 && id.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 < 128 && Character(Unicode.Scalar($0)).isHexDigit) }
            && UUID(uuidString: id) != nil
    }

    static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): a CSPRNG
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
    }

    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    // MARK: - Sessions (under the lock)

    /// Mints a session for `apiKey` (which must be configured).
    func createSession(apiKey: String, relayed: Bool, archiveMode: ArchiveMode = .manual, archiveName: String? = nil,
                       archiveResolution: String? = nil, location: String = "", e2ee: Bool = false) throws(OTSignalingError) -> String {
        let created = Self.nowMilliseconds()
        let id = try OpenTokSessionID.create(apiKey: apiKey, location: location, createTimeMilliseconds: created).rawValue
        perform {
            sessions[id] = SessionRecord(id: id, apiKey: apiKey, relayed: relayed, archiveMode: archiveMode,
                                         archiveName: archiveName, archiveResolution: archiveResolution, createdAt: created,
                                         e2ee: e2ee)
        }
        // Outside the lock: the cluster stores the record and claims the session in Redis.
        cluster?.sessionCreated(ClusterSessionRecord(id: id, apiKey: apiKey, relayed: relayed, archiveMode: archiveMode.rawValue,
                                                     e2ee: e2ee, createdAt: created, createdBy: cluster?.nodeId ?? ""))
        log.log(.info, "session.created", session: id, ["apiKey": apiKey, "mediaMode": relayed ? "relayed" : "routed",
                                                         "archiveMode": archiveMode.rawValue, "e2ee": e2ee ? "true" : "false"])
        return id
    }

    /// The session `id`, created if it is a valid id of `apiKey` the router has not seen:
    /// OpenTok sessions never expire, so an id minted elsewhere (or before a restart) is
    /// honoured. In a cluster the record another node stored gives its media mode, archive
    /// mode and encryption, and this node claims the session unless another node has
    /// (queued: no Redis I/O under the lock); otherwise it is routed with manual archiving.
    func sessionOrAdopt(_ id: String, apiKey: String) -> SessionRecord? {
        if let session = sessions[id] { return session.apiKey == apiKey ? session : nil }
        guard let parsed = try? OpenTokSessionID(parsing: id), parsed.belongs(toAPIKey: apiKey) else { return nil }
        let created = Int64(parsed.createTime) ?? Self.nowMilliseconds()
        var session = SessionRecord(id: id, apiKey: apiKey, relayed: false, archiveMode: .manual, archiveName: nil,
                                    archiveResolution: nil, createdAt: created)
        if let cluster {
            if let known = cluster.knownSession(id) {
                guard known.apiKey == apiKey else { return nil }
                session = SessionRecord(id: id, apiKey: apiKey, relayed: known.relayed, archiveMode: ArchiveMode(rawValue: known.archiveMode) ?? .manual,
                                        archiveName: nil, archiveResolution: nil, createdAt: known.createdAt, e2ee: known.e2ee)
            }
            afterUnlock { cluster.sessionSeen(id) }
        }
        sessions[id] = session
        log.log(.info, "session.adopted", session: id, ["apiKey": apiKey, "mediaMode": session.relayed ? "relayed" : "routed"])
        return session
    }

    /// Removes a stream and tells everyone but its publisher (`reason` as OpenTok's).
    func removeStream(_ streamId: String, from session: inout SessionRecord, reason: String) {
        guard let stream = session.streams.removeValue(forKey: streamId) else { return }
        session.streamOrder.removeAll { $0 == streamId }
        session.muteAllExcluded.remove(streamId)
        archiveStreamLeft(streamId, in: session)
        let publisher = stream.wire.connectionId
        session.connections[publisher]?.streams.removeAll { $0 == streamId }
        for (subscriberId, subscription) in session.subscriptions where subscription.streamId == streamId {
            session.subscriptions[subscriberId] = nil
            session.connections[subscription.connectionId]?.subscriptions.remove(subscriberId)
        }
        if stream.routed {  // closes its subscriber legs too, joining the stream's thread: not under the lock
            let media = media
            afterUnlock { media.removePublisher(streamId: streamId) }
        }
        broadcast(.streamDestroyed(streamId: streamId, reason: reason), in: session, except: publisher)
        log.log(.info, "stream.destroyed", session: session.id, connection: publisher, ["stream": streamId, "reason": reason])
    }

    /// Removes a connection with its streams and subscriptions and tells the others.
    func destroyConnection(_ connectionId: String, in sessionId: String, reason: String) {
        guard var session = sessions.removeValue(forKey: sessionId) else { return }
        defer { sessions[sessionId] = session }
        guard let connection = session.connections[connectionId] else { return }
        for streamId in connection.streams { removeStream(streamId, from: &session, reason: reason) }
        var relayedStreams: Set<String> = []
        for subscriberId in connection.subscriptions {
            let gone = session.subscriptions.removeValue(forKey: subscriberId)
            if gone?.routed ?? !session.relayed { removeLegLater(subscriberId) }
            if let gone, !gone.routed { relayedStreams.insert(gone.streamId) }
        }
        // Its subscriptions no longer count toward relayed publishers' limits.
        for streamId in relayedStreams.sorted() { relayedPreferencesChanged(streamId: streamId, in: &session) }
        session.connections[connectionId] = nil
        session.connectionOrder.removeAll { $0 == connectionId }
        if session.connections.isEmpty { session.emptySince = .now }
        addressLeft(connection.address)
        detached[connectionId] = nil
        eventLogs[connectionId] = nil
        if let peer = connection.peer { peers[peer.id]?.connectionId = nil }
        broadcast(.connectionDestroyed(connectionId: connectionId, reason: reason), in: session)
        log.log(.info, "connection.destroyed", session: sessionId, connection: connectionId, ["reason": reason])
        if session.connections.isEmpty {
            // Nobody left to record: its archives stop (OpenTok stops them when the session empties).
            for archiveId in session.activeArchiveIds { stopArchive(archiveId, session: &session) }
        }
    }

    /// The connection lost its socket: keep it for the grace period and tell the others
    /// its streams are interrupted (or destroy it at once when the grace is zero).
    func detach(_ connectionId: String, in sessionId: String, why: String) {
        guard configuration.reconnectGraceSeconds > 0 else {
            destroyConnection(connectionId, in: sessionId, reason: "networkDisconnected")
            return
        }
        guard var session = sessions.removeValue(forKey: sessionId) else { return }
        defer { sessions[sessionId] = session }
        guard session.connections[connectionId] != nil else { return }
        session.connections[connectionId]!.peer = nil
        session.connections[connectionId]!.graceDeadline = .now + .milliseconds(Int64(configuration.reconnectGraceSeconds * 1000))
        detached[connectionId] = sessionId
        if eventLogs[connectionId] == nil { eventLogs[connectionId] = EventLog() }  // what it misses from now on
        for streamId in session.connections[connectionId]!.streams {
            broadcast(.streamInterrupted(streamId: streamId), in: session, except: connectionId)
        }
        log.log(.warning, "connection.interrupted", session: sessionId, connection: connectionId,
                ["why": why, "graceSeconds": String(configuration.reconnectGraceSeconds)])
    }

    // MARK: - Timer

    /// Drops sockets silent for longer than the silence timeout and destroys connections
    /// whose grace ended. Called by the router's timer a few times a second.
    func tick() {
        perform {
            let now = ContinuousClock.now
            let silence = Duration.milliseconds(Int64(configuration.silenceTimeoutSeconds * 1000))
            for (key, state) in peers where now - state.lastHeard > silence {
                peers[key] = nil
                close(state.peer, code: 1001, reason: "silent for \(configuration.silenceTimeoutSeconds) s")
                if let connectionId = state.connectionId {
                    detach(connectionId, in: state.sessionId, why: "socket silent for \(configuration.silenceTimeoutSeconds) s")
                }
            }
            for (connectionId, sessionId) in detached {
                guard let deadline = sessions[sessionId]?.connections[connectionId]?.graceDeadline else {
                    detached[connectionId] = nil
                    continue
                }
                if deadline <= now { destroyConnection(connectionId, in: sessionId, reason: "networkDisconnected") }
            }
            removeIdleSessions(now: now)
            stopOverdueArchives(nowMilliseconds: Self.nowMilliseconds())
        }
    }

    // MARK: - Metrics

    /// The gauges, counters and media totals.
    func metrics() -> RouterMetrics {
        var metrics = RouterMetrics()
        perform {
            metrics.sessions = sessions.count
            for session in sessions.values {
                if !session.connections.isEmpty { metrics.activeSessions += 1 }
                metrics.connections += session.connections.count
                metrics.streams += session.streams.count
                metrics.subscribers += session.subscriptions.count
            }
        }
        metrics.media = media.totals
        metrics.mediaSockets = media.openSockets
        metrics.cluster = cluster?.statistics
        metrics.cascade = (media as? MediaRouter)?.cascadeCounters.snapshot
        metrics.forwarding = forwarding?.statistics
        counters.fill(&metrics)
        return metrics
    }
}
