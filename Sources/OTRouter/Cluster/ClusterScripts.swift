/// The Lua scripts the cluster runs in Redis (`EVAL`): each does a check and a write in
/// one step, so no other node can act in between.
enum ClusterScripts {
    /// KEYS: owner keys; ARGV: node id, TTL ms. Per key: ours → renewed (1); absent (Redis
    /// restarted, or the claim lapsed) → taken again (2); another node's → 0.
    static let renewClaims = """
        local out = {}
        for i, key in ipairs(KEYS) do
          local v = redis.call('GET', key)
          if v == ARGV[1] then redis.call('PEXPIRE', key, ARGV[2]); out[i] = 1
          elseif not v then redis.call('SET', key, ARGV[1], 'PX', ARGV[2]); out[i] = 2
          else out[i] = 0 end
        end
        return out
        """

    /// KEYS: owner keys; ARGV: node id. Deletes the claims that are still ours; returns how many.
    static let releaseClaims = """
        local n = 0
        for _, key in ipairs(KEYS) do
          if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key); n = n + 1 end
        end
        return n
        """

    /// KEYS: the nodes hash; ARGV: key prefix. Removes every node whose `alive` key has
    /// expired; returns their ids.
    static let pruneNodes = """
        local gone = {}
        for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do
          if redis.call('EXISTS', ARGV[1] .. 'node:' .. id .. ':alive') == 0 then
            redis.call('HDEL', KEYS[1], id); gone[#gone + 1] = id
          end
        end
        return gone
        """

    /// KEYS: this node's alive key, the nodes hash; ARGV: instance token, node id. Removes the
    /// registration only if it is this process' (a refused twin must not remove the node it
    /// collided with); returns 1 if removed.
    static let deregister = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          redis.call('DEL', KEYS[1]); redis.call('HDEL', KEYS[2], ARGV[2]); return 1
        end
        return 0
        """

    /// KEYS: the session's owner key, the dead owner's `alive` key; ARGV: the dead owner's
    /// id, this node's id, TTL ms. Claims the session for this node when the claim names
    /// the dead owner and its `alive` key is gone, or names nobody; returns the owner
    /// afterwards ("" when the named owner is alive: nothing changed).
    static let takeOver = """
        local v = redis.call('GET', KEYS[1])
        if (not v) or (v == ARGV[1] and redis.call('EXISTS', KEYS[2]) == 0) then
          redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]); return ARGV[2]
        end
        if v == ARGV[1] then return '' end
        return v
        """
}
