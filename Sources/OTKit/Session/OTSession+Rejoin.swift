import Foundation
import OTSignaling

/// Reconnecting as a new connection when the router cannot resume ours: in a cluster, the
/// node that owned the session died (SIGKILL) with the session's state, and the node that
/// took it over answers the resume with ``ErrorReply/rejoinCode`` (docs/scale.md,
/// "Failover"). The session connects again with its token through the same router, still
/// inside the reconnection's grace period, and the app keeps its view of one session that
/// reconnected:
///
/// - `sessionDidBeginReconnecting` (already told), then `sessionDidReconnect`;
/// - the differences with the new connection's reply as events, as after any resume
///   (`reconcile`): the old streams `streamDestroyed` (their subscribers end: the app
///   subscribes to the new streams from `streamCreated`, as OpenTok's apps do when a
///   publisher's stream is re-made), connections gone and new, new streams;
/// - our publisher publishes again by itself: `publisher(_:streamDestroyed:)` of its old
///   stream, then `publisher(_:streamCreated:)` of a new one (a new stream id; the others
///   see the old stream destroyed and the new one created);
/// - signals queued while away are sent; requests of the lost connection are settled.
///
/// One fresh connect per reconnection, bounded by the grace deadline like every resume
/// attempt; counted in ``OTSession/rejoins`` and logged. Work queue only.
extension OTSession {
    /// The router answered our resume with "rejoin" on `channel`: connect afresh through the same router.
    func rejoin(_ channel: SignalingChannel, _ message: String) {
        log.add("the router cannot resume this connection (\(message)): connecting again as a new connection")
        channel.close()
        rejoining = true
        currentBase = attemptBase  // the router that answered is alive: ask it again
        resumeAttempts = 0
        scheduleResumeAttempt(after: 0)
    }

    /// The fresh connection of a rejoin is up: the app hears `sessionDidReconnect`, then
    /// what changed; our publisher publishes again.
    func rejoined(_ reply: ConnectedReply) {
        rejoining = false
        let own = OTConnection(reply.connection)
        let (proceed, publisher, queued) = lock.withLock { () -> (Bool, OTPublisherKit?, [QueuedSignal]) in
            guard state.status == .reconnecting else { return (false, nil, []) }
            state.status = .connected
            state.connection = own
            state.capabilities = OTSessionCapabilities(reply.capabilities)
            state.resumeSecret = reply.resumeSecret
            if reply.reconnectGraceMilliseconds > 0 { state.graceSeconds = Double(reply.reconnectGraceMilliseconds) / 1000 }
            state.forceMuteAllActive = reply.forceMuteAll
            let publisher = state.publisher
            state.publisher = nil
            let queued = state.queuedSignals
            state.queuedSignals = []
            return (true, publisher, queued)
        }
        guard proceed else { channel?.close(); return }
        reconnectDeadline = nil
        pendingReconciliation = nil
        rejoins.add(1, ordering: .relaxed)
        log.add("rejoined as \(own.connectionId)")
        deliver(.didReconnect)
        endConfirmedRequests()  // they were for the lost connection
        reconcile(with: reply)
        if let publisher { republish(publisher) }
        let resends = queued.filter { $0.request.id != nil }.sorted { ($0.request.id ?? 0) < ($1.request.id ?? 0) }
        for signal in resends + queued.filter({ $0.request.id == nil }) { transmitSignal(signal) }
    }

    /// Ends `publisher`'s lost stream (media stopped, its `streamDestroyed`) and publishes
    /// it again on the new connection (its `streamCreated` follows the router's answer).
    private func republish(_ publisher: OTPublisherKit) {
        let old = publisher.detach()
        if let old { dropSubscribers(ofOwnStream: old.streamId) }
        onApiQueue { if let old { publisher.delegate?.publisher(publisher, streamDestroyed: old) } }
        do throws(OTError) { try publish(publisher) } catch {
            log.add("publishing again after a rejoin failed: \(error)")
            onApiQueue { publisher.delegate?.publisher(publisher, didFailWithError: error) }
        }
    }
}
