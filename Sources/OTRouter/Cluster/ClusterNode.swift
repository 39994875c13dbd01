import Foundation
import Synchronization

/// This router's membership of a cluster of routers sharing one Redis (issue 19): it
/// registers the node with its addresses and load under a TTL heartbeat, prunes nodes
/// whose heartbeat lapsed, and places sessions (``ClusterNode+Placement``): the first
/// node to see a session claims it with `SET … NX PX`, and renews its claims on every
/// heartbeat. Session records go to Redis and, over pub/sub, to every node's cache.
///
/// Threading: every Redis command runs on one serial queue (`otkit.cluster`); the local
/// state sits behind a mutex held only for memory work, so the signaling lock never
/// waits on Redis. Redis being away is counted and retried on each heartbeat; what does
/// not need Redis keeps working.
public final class ClusterNode: Sendable {
    /// The configuration it runs with.
    public let configuration: ClusterConfiguration
    /// Key and channel names.
    public let keys: ClusterKeys
    /// This node's id.
    public var nodeId: String { configuration.nodeId }

    let queue = DispatchQueue(label: "otkit.cluster")
    let connection: RedisConnection
    let log: RouterLog
    /// A random token for this process, the value of its `alive` key.
    let instance = UUID().uuidString.lowercased()

    struct State {
        var owned: Set<String> = []
        /// Last known owner of sessions seen here but owned elsewhere.
        var owners: [String: String] = [:]
        /// Session records from Redis and pub/sub.
        var sessions: [String: ClusterSessionRecord] = [:]
        /// Records and claims Redis has not taken yet (it was away).
        var pendingRecords: [String: ClusterSessionRecord] = [:]
        var pendingClaims: Set<String> = []
        /// Sessions taken over from a dead owner (``takeOver(_:from:)``).
        var takenOver: Set<String> = []
        /// Archives this node holds (their id → node entries are in `otkit:archives`).
        var archives: Set<String> = []
        /// Archive entries Redis has not taken (or not dropped) yet (it was away).
        var pendingArchives: Set<String> = []
        var pendingArchiveRemovals: Set<String> = []
        var statistics = ClusterStatistics()
        var registered = false
        var stopped = false
        var started = false
        /// The timer was resumed once (Dispatch traps on releasing a source never resumed).
        var timerResumed = false
        var subscriber: RedisSubscriber?
        var advertised: (url: String, publicIP: String, mediaPort: Int?)?
        var load: (@Sendable () -> ClusterLoad)?
        /// The base URLs of the registered nodes, as of the last heartbeat.
        var nodeURLs: [String] = []
    }
    let state = Mutex(State())
    /// The heartbeat, on `queue`; resumed by `start`, cancelled by `stop`.
    private nonisolated(unsafe) let timer: DispatchSourceTimer  // thread-safe per Dispatch's documentation

    /// A node for `configuration` (checked by the caller with `problem()`). Nothing is sent
    /// to Redis until ``start(url:publicIP:mediaPort:load:)``. Cost: allocations.
    public init(configuration: ClusterConfiguration, log: RouterLog) {
        self.configuration = configuration
        keys = ClusterKeys(prefix: configuration.keyPrefix)
        connection = RedisConnection(endpoint: configuration.redis, timeoutMilliseconds: configuration.redisTimeoutMilliseconds)
        self.log = log
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    deinit {
        cancelTimer()
        // A node dropped without `stop()`: its subscriber thread must not outlive it.
        state.withLock { $0.subscriber }?.stop()
    }

    /// Cancels the heartbeat timer, resuming it first if it never ran. Idempotent.
    private func cancelTimer() {
        let resume = state.withLock { state -> Bool in
            defer { state.timerResumed = true }
            return !state.timerResumed
        }
        timer.cancel()
        if resume { timer.resume() }
    }

    /// Registers the node (waiting up to one node TTL for a previous process with the same
    /// id to lapse), loads the stored session records, subscribes to the events channel and
    /// starts the heartbeat. Cost: a few round trips; then one heartbeat per interval.
    /// - Throws: ``RedisError`` when Redis cannot be reached, or another live node uses this id.
    public func start(url: String, publicIP: String, mediaPort: Int?, load: @escaping @Sendable () -> ClusterLoad) throws(RedisError) {
        state.withLock {
            $0.advertised = (url, publicIP, mediaPort)
            $0.load = load
        }
        let result: Result<Void, RedisError> = queue.sync {
            do throws(RedisError) {
                let deadline = ContinuousClock.now + .milliseconds(configuration.nodeTTLMilliseconds + configuration.heartbeatMilliseconds)
                while true {
                    let taken = try connection.command(strings: ["SET", keys.alive(nodeId), instance, "NX", "PX",
                                                                 String(configuration.nodeTTLMilliseconds)])
                    if !taken.isNil { break }
                    guard ContinuousClock.now < deadline else {
                        throw RedisError(.unexpected, "node id \(nodeId) is in use by another live router (its key \(keys.alive(nodeId)) is being renewed); give each router its own --node-id")
                    }
                    Thread.sleep(forTimeInterval: 0.1)
                }
                try writeRegistration()
                try storeArchives()
                try reloadSessions()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        let subscriber = RedisSubscriber(endpoint: configuration.redis, channels: [keys.events],
                                         timeoutMilliseconds: configuration.redisTimeoutMilliseconds,
                                         resubscribed: { [weak self] in
                                             guard let self else { return }
                                             queue.async { self.resynchronize() }
                                         },
                                         handler: { [weak self] _, payload in self?.received(payload) })
        let interval = DispatchTimeInterval.milliseconds(configuration.heartbeatMilliseconds)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.heartbeat() }
        let resume = state.withLock { state -> Bool in
            state.subscriber = subscriber
            state.started = true
            defer { state.timerResumed = true }
            return !state.timerResumed
        }
        if resume { timer.resume() }
        log.log(.info, "cluster.joined", ["node": nodeId, "redis": configuration.redis.description, "url": url])
    }

    /// Stops the heartbeat and the subscriber. With `deregister` (a clean shutdown) it also
    /// removes its registration and releases its session claims; without (as a crash
    /// would) the others prune it once its TTL lapses. Idempotent. Cost: a few round trips.
    public func stop(deregister: Bool = true) {
        let (started, subscriber, owned, wasStopped) = state.withLock { state in
            let result = (state.started, state.subscriber, state.owned, state.stopped)
            state.stopped = true
            state.subscriber = nil
            return result
        }
        guard !wasStopped else { return }
        cancelTimer()
        subscriber?.stop()
        queue.sync {
            guard deregister, started else { return }  // never started: nothing of ours to remove
            do throws(RedisError) {
                _ = try connection.command(strings: ["EVAL", ClusterScripts.deregister, "2", keys.alive(nodeId), keys.nodes, instance, nodeId])
                for chunk in Array(owned).chunked(500) {
                    _ = try connection.command(strings: ["EVAL", ClusterScripts.releaseClaims, String(chunk.count)]
                                                   + chunk.map(keys.owner) + [nodeId])
                }
            } catch {
                log.log(.warning, "cluster.leaveFailed", ["node": nodeId, "error": error.description])
            }
        }
        connection.close()
        log.log(.info, "cluster.left", ["node": nodeId, "deregistered": deregister ? "true" : "false"])
    }

    /// The base URLs (REST + signaling) of the nodes registered at the last heartbeat, this
    /// one included: where a client may reconnect when its node goes. No I/O. Cost: a copy under the mutex.
    public var nodeURLs: [String] {
        state.withLock { state in
            guard let own = state.advertised?.url, !state.nodeURLs.contains(own) else { return state.nodeURLs }
            return (state.nodeURLs + [own]).sorted()
        }
    }

    /// The base URL this node registered with, nil before ``start(url:publicIP:mediaPort:load:)``.
    public var advertisedURL: String? { state.withLock { $0.advertised?.url } }

    /// What the cluster plane has done. Cost: the mutex.
    public var statistics: ClusterStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.ownedSessions = state.owned.count
            return statistics
        }
    }

    /// Counts a client connect refused because its session could not be placed without Redis.
    /// Cost: the mutex.
    public func countRefusedWithoutRedis() { state.withLock { $0.statistics.refusedWithoutRedis += 1 } }

    /// Every registered node, from Redis. Cost: one round trip on the cluster queue.
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func nodes() throws(RedisError) -> [ClusterNodeInfo] {
        try onQueue { () throws(RedisError) in
            let reply = try connection.command(strings: ["HGETALL", keys.nodes])
            return Self.pairs(reply).compactMap { _, value in try? JSONDecoder().decode(ClusterNodeInfo.self, from: Data(value)) }
                .sorted { $0.id < $1.id }
        }
    }

    // MARK: - On the queue

    /// Runs `body` on the cluster queue and returns its result. Not from the queue itself.
    func onQueue<T: Sendable>(_ body: () throws(RedisError) -> T) throws(RedisError) -> T {
        let result: Result<T, RedisError> = queue.sync {
            do throws(RedisError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Counts a failed command and logs it (once per kind of failure in a row would be
    /// nicer; every failure is logged at debug level, the first at warning).
    func failed(_ error: RedisError, doing what: String) {
        let first = state.withLock { state -> Bool in
            state.statistics.redisErrors += 1
            return state.statistics.redisErrors == 1 || state.registered
        }
        state.withLock { $0.registered = false }
        log.log(first ? .warning : .debug, "cluster.redisError", ["node": nodeId, "doing": what, "error": error.description])
    }

    /// The node's registration: `alive` with its TTL, then its description. True when the
    /// entry was new (first start, or Redis lost it: then what this node wrote before must
    /// be written again).
    @discardableResult
    func writeRegistration() throws(RedisError) -> Bool {
        let (advertised, load, owned) = state.withLock { ($0.advertised, $0.load, $0.owned.count) }
        guard let advertised else { return false }
        let now = load?() ?? ClusterLoad(sessions: 0, connections: 0, streams: 0)
        let info = ClusterNodeInfo(id: nodeId, publicIP: advertised.publicIP, url: advertised.url, mediaPort: advertised.mediaPort,
                                   sessions: now.sessions, connections: now.connections, streams: now.streams, ownedSessions: owned,
                                   heartbeatAt: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        let json = (try? JSONEncoder().encode(info)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        try connection.command(strings: ["SET", keys.alive(nodeId), instance, "PX", String(configuration.nodeTTLMilliseconds)])
        let added = try connection.command(strings: ["HSET", keys.nodes, nodeId, json])
        let wasRegistered = state.withLock { state -> Bool in
            let was = state.registered
            state.registered = true
            if added.integer == 1 { state.statistics.registrations += 1 }
            return was
        }
        if !wasRegistered || added.integer == 1 {
            log.log(.info, "cluster.registered", ["node": nodeId, "new": added.integer == 1 ? "true" : "false"])
        }
        return added.integer == 1
    }

    /// One heartbeat: registration, claims, what Redis missed, pruning.
    func heartbeat() {
        if state.withLock({ $0.stopped }) { return }
        do throws(RedisError) {
            if try writeRegistration() { try storeArchives() }  // Redis restarted empty: put our archives back
            try renewClaims()
            try flushPending()
            try flushPendingArchives()
            let pruned = try connection.command(strings: ["EVAL", ClusterScripts.pruneNodes, "1", keys.nodes, keys.prefix])
            let gone = (pruned.elements ?? []).compactMap(\.text)
            let urls = Self.pairs(try connection.command(strings: ["HGETALL", keys.nodes]))
                .compactMap { _, value in try? JSONDecoder().decode(ClusterNodeInfo.self, from: Data(value)) }
                .sorted { $0.id < $1.id }.map(\.url)
            state.withLock { $0.nodeURLs = urls }
            state.withLock { $0.statistics.heartbeats += 1 }
            if !gone.isEmpty {
                state.withLock { $0.statistics.nodesPruned += UInt64(gone.count) }
                log.log(.info, "cluster.pruned", ["node": nodeId, "pruned": gone.joined(separator: ",")])
                publish(ClusterEvent(kind: "pruned", from: nodeId, session: nil, nodes: gone))
            }
        } catch {
            failed(error, doing: "heartbeat")
        }
    }

    /// After (re)subscribing: what was published while the subscriber was away is in Redis.
    func resynchronize() {
        do throws(RedisError) {
            try reloadSessions()
        } catch {
            failed(error, doing: "reload sessions")
        }
    }

    /// Reads every stored session record into the cache.
    func reloadSessions() throws(RedisError) {
        let reply = try connection.command(strings: ["HGETALL", keys.sessions])
        var records: [String: ClusterSessionRecord] = [:]
        for (id, value) in Self.pairs(reply) {
            guard let record = try? JSONDecoder().decode(ClusterSessionRecord.self, from: Data(value)), record.id == id else { continue }
            records[id] = record
        }
        state.withLock { $0.sessions.merge(records) { _, stored in stored } }
    }

    /// Publishes `event` on the events channel (best effort: Redis has the state anyway).
    func publish(_ event: ClusterEvent) {
        do throws(RedisError) {
            _ = try connection.command([Array("PUBLISH".utf8), Array(keys.events.utf8), event.encoded()])
        } catch {
            failed(error, doing: "publish")
        }
    }

    /// A message from the events channel (on the subscriber's thread).
    func received(_ payload: [UInt8]) {
        guard let event = ClusterEvent.decode(payload), event.from != nodeId else { return }
        if event.kind == "session", let record = event.session {
            state.withLock {
                $0.sessions[record.id] = record
                $0.statistics.sessionEvents += 1
            }
        }
    }

    /// The field/value pairs of an `HGETALL` reply (an even-length array of bulks).
    static func pairs(_ reply: RedisReply) -> [(String, [UInt8])] {
        guard let items = reply.elements, items.count % 2 == 0 else { return [] }
        var out: [(String, [UInt8])] = []
        out.reserveCapacity(items.count / 2)
        var index = 0
        while index < items.count {
            if let key = items[index].text, case .bulk(let value?) = items[index + 1] { out.append((key, value)) }
            index += 2
        }
        return out
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
