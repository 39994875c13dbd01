import Foundation
import OTNet

/// The hub's side of `RouterLimits`: connections per address, idle sessions, and the
/// media work it hands out of its lock. Every function here runs under the hub's lock.
extension SessionHub {
    /// The IP address in a peer's `host:port` / `[v6]:port` text (the whole text if it
    /// has no port). O(length).
    static func addressKey(_ remote: String) -> String {
        if remote.hasPrefix("["), let close = remote.firstIndex(of: "]") {
            return String(remote[remote.index(after: remote.startIndex)..<close])
        }
        let colons = remote.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ":") ? 1 : 0) }
        guard colons == 1, let colon = remote.lastIndex(of: ":") else { return remote }
        return String(remote[..<colon])
    }

    /// Whether one more connection from `address` fits `RouterLimits.connectionsPerAddress`.
    func addressHasRoom(_ address: String) -> Bool {
        connectionsByAddress[address, default: 0] < configuration.limits.connectionsPerAddress
    }

    /// Counts a connection from `address`.
    func addressJoined(_ address: String) { connectionsByAddress[address, default: 0] += 1 }

    /// Uncounts a connection from `address` (the entry goes when it reaches 0).
    func addressLeft(_ address: String) {
        guard let count = connectionsByAddress[address] else { return }
        connectionsByAddress[address] = count > 1 ? count - 1 : nil
    }

    /// Closes a subscriber leg once the lock is released.
    func removeLegLater(_ subscriberId: String) {
        let media = media
        afterUnlock { media.removeSubscriber(subscriberId: subscriberId) }
    }

    /// Whether one more media leg fits `RouterLimits.mediaSockets` (the legs open now plus
    /// those being opened).
    var mediaSocketsHaveRoom: Bool { media.openSockets + pendingLegs < configuration.limits.mediaSockets }

    /// Removes the sessions that have had no connection for `idleSessionSeconds` and that a
    /// connect could adopt again as they are (see `SessionRecord.isReadoptable`). O(sessions).
    func removeIdleSessions(now: ContinuousClock.Instant) {
        let idle = Duration.milliseconds(Int64(configuration.limits.idleSessionSeconds * 1000))
        var removed: [String] = []
        for (id, session) in sessions {
            guard session.connections.isEmpty, let since = session.emptySince, now - since >= idle, session.isReadoptable else { continue }
            removed.append(id)
        }
        guard !removed.isEmpty else { return }
        for id in removed {
            sessions[id] = nil
            log.log(.info, "session.removed", session: id, ["why": "no connection for \(configuration.limits.idleSessionSeconds) s"])
        }
        counters.idleSessionsRemoved(removed.count)
    }
}
