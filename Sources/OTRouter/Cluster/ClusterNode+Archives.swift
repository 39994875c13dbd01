import Foundation

/// Where each archive lives: an archive is recorded, kept and served by the node that
/// owned its session when it started, so `otkit:archives` maps its id to that node and
/// any node can forward a call by archive id there (``ClusterForwarding+Archives``).
/// The holder writes the entry when the archive starts and removes it when the archive is
/// deleted; what Redis missed while away is written at a later heartbeat, and all of the
/// node's entries again after Redis restarted empty.
extension ClusterNode {
    /// Most archive ids one `HSET`/`HDEL` carries.
    static let archiveBatch = 500

    /// Archive `archiveId` started (or was found on disk) on this node: records it locally
    /// and queues its entry for Redis. No I/O on the caller's thread (safe right after the
    /// signaling lock); ``settle()`` waits for the write. Cost: the mutex and a queued round trip.
    public func archiveStarted(_ archiveId: String) {
        state.withLock {
            $0.archives.insert(archiveId)
            $0.pendingArchiveRemovals.remove(archiveId)
        }
        queue.async { [self] in
            do throws(RedisError) {
                _ = try connection.command(strings: ["HSET", keys.archives, archiveId, nodeId])
            } catch {
                _ = state.withLock { $0.pendingArchives.insert(archiveId) }
                failed(error, doing: "store archive")
            }
        }
    }

    /// Archive `archiveId` was deleted here: forgets it and queues the removal of its entry.
    /// Cost: the mutex and a queued round trip.
    public func archiveRemoved(_ archiveId: String) {
        state.withLock {
            $0.archives.remove(archiveId)
            $0.pendingArchives.remove(archiveId)
        }
        queue.async { [self] in
            do throws(RedisError) {
                _ = try connection.command(strings: ["HDEL", keys.archives, archiveId])
            } catch {
                _ = state.withLock { $0.pendingArchiveRemovals.insert(archiveId) }
                failed(error, doing: "remove archive")
            }
        }
    }

    /// Archives this node held before it joined (records found on disk): recorded locally,
    /// written to Redis by ``start(url:publicIP:mediaPort:load:)``. No I/O. Cost: the mutex.
    public func holdArchives(_ archiveIds: [String]) {
        state.withLock { $0.archives.formUnion(archiveIds) }
    }

    /// Whether this node holds archive `archiveId` (its own state, no I/O). Cost: the mutex.
    public func holdsArchive(_ archiveId: String) -> Bool { state.withLock { $0.archives.contains(archiveId) } }

    /// Waits until every Redis write queued so far has been tried (a REST reply that names a
    /// new archive goes out only once other nodes can find it). Not from the cluster queue.
    /// Cost: waits for the queue (up to one Redis timeout per queued command when Redis is away).
    public func settle() { queue.sync {} }

    /// The node holding archive `archiveId`, asked of Redis (its entry and the node's
    /// registration; `node` nil when the holder is not registered now); nil if no node
    /// recorded it. Cost: two round trips on the cluster queue.
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func archiveHolder(_ archiveId: String) throws(RedisError) -> ClusterSessionOwner? {
        try onQueue { () throws(RedisError) -> ClusterSessionOwner? in
            guard let holder = try connection.command(strings: ["HGET", keys.archives, archiveId]).text else { return nil }
            let node = try connection.command(strings: ["HGET", keys.nodes, holder]).text
                .flatMap { try? JSONDecoder().decode(ClusterNodeInfo.self, from: Data($0.utf8)) }
            return ClusterSessionOwner(nodeId: holder, node: node)
        }
    }

    // MARK: - On the queue

    /// Writes the entries of every archive this node holds (at start, and when Redis lost
    /// them), `archiveBatch` per command.
    func storeArchives() throws(RedisError) {
        let all = state.withLock { $0.archives }.sorted()
        for chunk in all.chunked(Self.archiveBatch) {
            _ = try connection.command(strings: ["HSET", keys.archives] + chunk.flatMap { [$0, nodeId] })
        }
        state.withLock { $0.pendingArchives.removeAll() }
    }

    /// Writes the entries and removals Redis missed while it was away.
    func flushPendingArchives() throws(RedisError) {
        let (stores, removals) = state.withLock { state in
            (state.pendingArchives.filter { state.archives.contains($0) }.sorted(), state.pendingArchiveRemovals.sorted())
        }
        for chunk in stores.chunked(Self.archiveBatch) {
            _ = try connection.command(strings: ["HSET", keys.archives] + chunk.flatMap { [$0, nodeId] })
            state.withLock { state in for id in chunk { state.pendingArchives.remove(id) } }
        }
        for chunk in removals.chunked(Self.archiveBatch) {
            _ = try connection.command(strings: ["HDEL", keys.archives] + chunk)
            state.withLock { state in for id in chunk { state.pendingArchiveRemovals.remove(id) } }
        }
    }
}
