/// A server's WebSockets that the application has not vouched for yet, oldest first, so
/// that at the cap the oldest is the one let go. Service thread only. Cost: an append per
/// open; removal is a flag and a counter, the list is compacted when half of it is stale.
struct UnauthenticatedPeers {
    private var order: [ServerPeer] = []
    private var head = 0
    /// How many are counted now.
    private(set) var count = 0

    /// Counts `peer` as unauthenticated (newest).
    mutating func add(_ peer: ServerPeer) {
        peer.countedUnauthenticated = true
        order.append(peer)
        count += 1
    }

    /// Stops counting `peer`; false if it was not counted.
    @discardableResult mutating func remove(_ peer: ServerPeer) -> Bool {
        guard peer.countedUnauthenticated else { return false }
        peer.countedUnauthenticated = false
        count -= 1
        if order.count - head > 2 * count + 64 {
            order = order[head...].filter(\.countedUnauthenticated)
            head = 0
        }
        return true
    }

    /// The oldest peer still counted, nil if none.
    mutating func oldest() -> ServerPeer? {
        while head < order.count, !order[head].countedUnauthenticated { head += 1 }
        if head > 64 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return head < order.count ? order[head] : nil
    }
}
