import Foundation

/// Session placement: the first node to see a session claims it (`SET owner-key node NX
/// PX ttl`), so nodes seeing it at once agree on one owner; the owner renews its claims on
/// every heartbeat and takes them again if Redis lost them (a restart without persistence).
extension ClusterNode {
    /// A session this node just created (REST or `Router.createSession`): stores its record,
    /// claims it and tells the other nodes. Runs on the cluster queue and waits for it (a
    /// few round trips), outside the signaling lock. If Redis is away the node owns it
    /// locally and writes record and claim at a later heartbeat.
    public func sessionCreated(_ record: ClusterSessionRecord) {
        state.withLock { $0.sessions[record.id] = record }
        queue.sync {
            do throws(RedisError) {
                try ensureRegistered()
                try store(record)
                try claim(record.id, created: true)
                publish(ClusterEvent(kind: "session", from: nodeId, session: record, nodes: nil))
            } catch {
                state.withLock {
                    $0.pendingRecords[record.id] = record
                    $0.pendingClaims.insert(record.id)
                    $0.owned.insert(record.id)
                }
                failed(error, doing: "store session")
            }
        }
    }

    /// A session this node sees for the first time (a client connected to it): claims it
    /// unless another node has. Asynchronous (queued on the cluster queue). Cost: one or
    /// two round trips, later.
    public func sessionSeen(_ sessionId: String) {
        queue.async { [self] in
            do throws(RedisError) {
                try ensureRegistered()
                try claim(sessionId)
            } catch {
                _ = state.withLock { $0.pendingClaims.insert(sessionId) }
                failed(error, doing: "claim session")
            }
        }
    }

    /// Places `sessionId` now: claims it unless another node has, and waits for the answer
    /// (``believedOwner(of:)`` says the result; nil when Redis did not answer). A failed
    /// placement leaves no claim to retry: its client was refused and places the session
    /// when it tries again, while a retried claim could take the session from the node
    /// that created it during the outage (whichever heartbeat reached Redis first).
    /// Not from the cluster queue. Cost: one or two round trips.
    public func place(_ sessionId: String) {
        queue.sync {
            do throws(RedisError) {
                try ensureRegistered()
                try claim(sessionId)
            } catch {
                failed(error, doing: "claim session")
            }
        }
    }

    /// The stored record of `sessionId` as this node knows it (from Redis at start and from
    /// the events channel since), nil if unknown. No I/O: safe under the signaling lock.
    /// Cost: the mutex and a dictionary lookup.
    public func knownSession(_ sessionId: String) -> ClusterSessionRecord? { state.withLock { $0.sessions[sessionId] } }

    /// Who this node believes owns `sessionId` (its own state, no I/O): its own id for a
    /// session it owns, the owner it learned when its claim lost, nil when it has not
    /// placed the session (yet). Cost: the mutex.
    public func believedOwner(of sessionId: String) -> String? {
        state.withLock { $0.owned.contains(sessionId) ? nodeId : $0.owners[sessionId] }
    }

    /// The sessions this node owns, as it believes (its own state). Cost: a copy under the mutex.
    public var ownedSessions: Set<String> { state.withLock { $0.owned } }

    /// Who owns `sessionId`, asked of Redis (the claim's value and the owner's
    /// registration); nil if nobody claims it. The internal API a node uses to say where a
    /// session lives. Cost: two round trips on the cluster queue.
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func owner(ofSession sessionId: String) throws(RedisError) -> ClusterSessionOwner? {
        try onQueue { () throws(RedisError) -> ClusterSessionOwner? in
            guard let owner = try connection.command(strings: ["GET", keys.owner(sessionId)]).text else { return nil }
            let node = try connection.command(strings: ["HGET", keys.nodes, owner]).text
                .flatMap { try? JSONDecoder().decode(ClusterNodeInfo.self, from: Data($0.utf8)) }
            return ClusterSessionOwner(nodeId: owner, node: node)
        }
    }

    /// The record of `sessionId` stored in Redis, nil if none. Cost: one round trip.
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func storedSession(_ sessionId: String) throws(RedisError) -> ClusterSessionRecord? {
        try onQueue { () throws(RedisError) -> ClusterSessionRecord? in
            guard case .bulk(let bytes?) = try connection.command(strings: ["HGET", keys.sessions, sessionId]) else { return nil }
            return try? JSONDecoder().decode(ClusterSessionRecord.self, from: Data(bytes))
        }
    }

    // MARK: - On the queue

    /// Registers the node now if Redis lost its registration (a failed command since the
    /// last heartbeat): a session it is about to own must be reachable by the other nodes
    /// at once, not at the next heartbeat. Its archive entries go back too. Cost: nothing
    /// when registered; else the registration's round trips.
    func ensureRegistered() throws(RedisError) {
        guard state.withLock({ !$0.registered && $0.started }) else { return }
        if try writeRegistration() { try storeArchives() }
    }

    /// Writes `record` into the sessions hash.
    func store(_ record: ClusterSessionRecord) throws(RedisError) {
        let json = (try? JSONEncoder().encode(record)) ?? Data()
        _ = try connection.command([Array("HSET".utf8), Array(keys.sessions.utf8), Array(record.id.utf8), Array(json)])
    }

    /// Claims `sessionId` for this node, or learns its owner. A claim won for a session
    /// some node stored before (its record is known here), not `created` here and not
    /// waiting to be written back after a Redis outage, is one whose owner's claim lapsed
    /// (the owner died): it counts as taken over (``tookOver(_:)``).
    func claim(_ sessionId: String, created: Bool = false) throws(RedisError) {
        let ttl = String(configuration.claimTTLMilliseconds)
        for _ in 0..<3 {
            let set = try connection.command(strings: ["SET", keys.owner(sessionId), nodeId, "NX", "PX", ttl])
            if !set.isNil {
                let lapsed = state.withLock { state -> Bool in
                    let lapsed = !created && state.sessions[sessionId] != nil && !state.pendingClaims.contains(sessionId)
                        && !state.owned.contains(sessionId)
                    if lapsed {
                        state.takenOver.insert(sessionId)
                        state.statistics.claimsTakenOver += 1
                    }
                    return lapsed
                }
                if lapsed { log.log(.warning, "cluster.takenOver", session: sessionId, ["node": nodeId, "from": "a lapsed claim"]) }
                state.withLock {
                    $0.owned.insert(sessionId)
                    $0.owners[sessionId] = nil
                    $0.pendingClaims.remove(sessionId)
                    $0.statistics.claimsWon += 1
                }
                log.log(.info, "cluster.claimed", session: sessionId, ["node": nodeId])
                return
            }
            guard let owner = try connection.command(strings: ["GET", keys.owner(sessionId)]).text else { continue }  // lapsed meanwhile
            state.withLock {
                $0.pendingClaims.remove(sessionId)
                if owner == nodeId {
                    $0.owned.insert(sessionId)
                } else {
                    $0.owned.remove(sessionId)
                    $0.owners[sessionId] = owner
                    $0.statistics.claimsLost += 1
                }
            }
            if owner != nodeId { log.log(.info, "cluster.ownedElsewhere", session: sessionId, ["node": nodeId, "owner": owner]) }
            return
        }
        throw RedisError(.unexpected, "the claim of \(sessionId) kept lapsing")
    }

    /// Renews every claim this node holds (one script per 500), taking again those Redis
    /// lost and re-storing their records, and dropping those another node took.
    func renewClaims() throws(RedisError) {
        let owned = Array(state.withLock { $0.owned }).sorted()
        for chunk in owned.chunked(500) {
            let reply = try connection.command(strings: ["EVAL", ClusterScripts.renewClaims, String(chunk.count)]
                                                   + chunk.map(keys.owner) + [nodeId, String(configuration.claimTTLMilliseconds)])
            guard let results = reply.elements, results.count == chunk.count else {
                throw RedisError(.unexpected, "the renewal script answered \(reply.elements?.count ?? -1) results for \(chunk.count) claims")
            }
            var retaken: [String] = []
            var dropped: [String] = []
            for (sessionId, result) in zip(chunk, results) {
                switch result.integer {
                case 2: retaken.append(sessionId)
                case 0: dropped.append(sessionId)
                default: break
                }
            }
            let records = state.withLock { state -> [ClusterSessionRecord] in
                state.statistics.claimsRetaken += UInt64(retaken.count)
                state.statistics.claimsDropped += UInt64(dropped.count)
                for id in dropped { state.owned.remove(id) }
                return retaken.compactMap { state.sessions[$0] }
            }
            for record in records { try store(record) }  // Redis restarted empty: put the records back
            if !dropped.isEmpty {
                log.log(.warning, "cluster.claimsLost", ["node": nodeId, "sessions": dropped.joined(separator: ",")])
            }
        }
    }

    /// Writes what Redis missed while it was away.
    func flushPending() throws(RedisError) {
        let (records, claims) = state.withLock { ($0.pendingRecords, $0.pendingClaims) }
        for record in records.values {
            try store(record)
            publish(ClusterEvent(kind: "session", from: nodeId, session: record, nodes: nil))
            _ = state.withLock { $0.pendingRecords.removeValue(forKey: record.id) }
        }
        for sessionId in claims.sorted() {
            _ = state.withLock { $0.owned.remove(sessionId) }  // claim again: another node may have taken it meanwhile
            try claim(sessionId)
        }
    }
}
