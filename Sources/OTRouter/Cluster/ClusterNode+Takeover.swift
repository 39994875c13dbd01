import Foundation

/// Taking a session over from a dead owner. A node that finds a session's owner gone (its
/// `alive` key lapsed, or its claim lapsed) while a client of the session knocks (a proxied
/// resume whose relay to the owner failed) claims the session in one Redis step
/// (``ClusterScripts/takeOver``): only if the claim still names the dead node (or names
/// nobody), so of several nodes doing it at once exactly one wins and the others learn it.
/// The sessions taken over are remembered (``tookOver(_:)``): the owner's state died with
/// it, so a resume there is answered "rejoin" (docs/scale.md, "Failover").
/// Cost: one round trip on the cluster queue, only when an owner is found dead.
extension ClusterNode {
    /// Claims `sessionId` if its claim names `deadOwner` whose `alive` key lapsed, or names
    /// nobody. Returns the session's owner afterwards (this node's id when it took it),
    /// nil when the owner is alive after all (nothing changed). Not from the cluster queue.
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func takeOver(_ sessionId: String, from deadOwner: String?) throws(RedisError) -> String? {
        let dead = deadOwner ?? ""
        let ttl = String(configuration.claimTTLMilliseconds)
        let reply = try onQueue { () throws(RedisError) -> RedisReply in
            try ensureRegistered()
            return try connection.command(strings: ["EVAL", ClusterScripts.takeOver, "2", keys.owner(sessionId), keys.alive(dead),
                                                    dead, nodeId, ttl])
        }
        guard let owner = reply.text, !owner.isEmpty else { return nil }
        // Several relays of one session can fail at once here: only the first call takes it
        // over; the others find this node's claim and change (and count) nothing.
        let tookItNow = state.withLock { state -> Bool in
            guard owner == nodeId else {
                state.owners[sessionId] = owner
                return false
            }
            guard !state.owned.contains(sessionId) else { return false }
            state.owned.insert(sessionId)
            state.owners[sessionId] = nil
            state.takenOver.insert(sessionId)
            state.statistics.claimsTakenOver += 1
            return true
        }
        if tookItNow { log.log(.warning, "cluster.takenOver", session: sessionId, ["node": nodeId, "from": dead]) }
        return owner
    }

    /// Whether this node took `sessionId` over from a dead owner (its connections died
    /// there: a resume of one of them cannot be honoured). No I/O. Cost: the mutex.
    public func tookOver(_ sessionId: String) -> Bool { state.withLock { $0.takenOver.contains(sessionId) } }
}
