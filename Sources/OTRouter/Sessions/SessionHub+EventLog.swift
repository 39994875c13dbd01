import OTNet
import OTSignaling

/// Events kept for a resume (issue 15): every event the router sends a connection is
/// numbered (`seq` in the envelope, one router-wide counter, so increasing for every
/// connection) and kept in its ``EventLog`` while the connection waits out its grace or
/// until a client that acknowledges events (`ConnectRequest.eventSeq` set) acknowledges
/// it. On resume the router answers `connected` with `replayedEvents` = n and sends those
/// n events right after it, in order, in the same locked step (nothing else comes
/// between). A resume that needs an event the log dropped for lack of room is refused
/// with 1010 and the connection ends as lost (`networkDisconnected`). All under the lock.
extension SessionHub {
    /// The next event sequence number (router-wide, from 1).
    func nextEventSeq() -> Int {
        eventSeq += 1
        return eventSeq
    }

    /// Sends an event to one connection (or keeps it while the connection is away).
    func sendEvent(_ message: ServerMessage, to connectionId: String, in session: SessionRecord) {
        guard let connection = session.connections[connectionId] else { return }
        let seq = nextEventSeq()
        let text = SignalingCodec.encode(message, eventSeq: seq)
        keep(text, seq: seq, for: connection.id)
        if let peer = connection.peer { send(text: text, to: peer) }
    }

    /// Keeps an event for `connectionId` if it has a log (it is away, or it acknowledges).
    func keep(_ text: String, seq: Int, for connectionId: String) {
        guard eventLogs[connectionId] != nil else { return }
        eventLogs[connectionId]!.append(seq: seq, text: text, capacity: configuration.limits.missedEventsPerConnection,
                                        byteCapacity: configuration.limits.missedEventBytesPerConnection)
    }

    /// The client handled everything up to `seq`.
    func acknowledgeEvents(through seq: Int, of connectionId: String) {
        eventLogs[connectionId]?.acknowledge(through: seq)
    }

    /// The events to send again on a resume from `seq` (nil: a client that does not
    /// acknowledge, which gets every event kept), or nil when one of them was dropped.
    /// A client that does not acknowledge keeps no log once back on a socket.
    func eventsToReplay(for connectionId: String, after seq: Int?, acknowledges: Bool) -> [String]? {
        guard let log = eventLogs[connectionId] else { return [] }
        let from = seq ?? 0
        guard !log.lostEvents(after: from) else { return nil }
        let texts = log.texts(after: from)
        if acknowledges { eventLogs[connectionId]!.acknowledge(through: from) } else { eventLogs[connectionId] = nil }
        return texts
    }

    /// A description of what the log of `connectionId` dropped, for the refusal.
    func droppedDescription(of connectionId: String) -> String {
        let dropped = eventLogs[connectionId]?.droppedCount ?? 0
        return "\(dropped) event(s) sent while it was away were dropped (the router keeps \(configuration.limits.missedEventsPerConnection) "
            + "events or \(configuration.limits.missedEventBytesPerConnection) bytes per connection: limits.missedEventsPerConnection)"
    }
}
