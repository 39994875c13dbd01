import OTSignaling

/// Media legs the SFU ended by itself (an edge leg whose DTLS handshake failed or did not
/// finish in time): signaling removes what the leg carried and tells its owner
/// (`mediaFailed`), which OTKit reports as OpenTok's WebRTC errors (publisher 1610,
/// subscriber 1600). A dead publisher leg ends its stream for everyone
/// (`streamDestroyed`, reason "networkDisconnected": the publisher's media path failed);
/// a dead subscriber leg ends that subscription only.
extension SessionHub {
    /// Routes the SFU's leg endings here. Called once, from `init`.
    func installLegEndedHandler() {
        media.setLegEndedHandler { [weak self] ended in self?.legEnded(ended) }
    }

    /// One leg ended (the SFU already removed it). Takes the hub's lock once; a leg
    /// signaling no longer knows (unpublished or unsubscribed meanwhile) changes nothing.
    func legEnded(_ ended: MediaLegEnded) {
        perform {
            switch ended {
            case let .publisher(streamId, reason): publisherLegEnded(streamId, reason: reason)
            case let .subscriber(subscriberId, reason): subscriberLegEnded(subscriberId, reason: reason)
            }
        }
    }

    private func publisherLegEnded(_ streamId: String, reason: String) {
        guard let sessionId = sessions.first(where: { $0.value.streams[streamId] != nil })?.key,
              var session = sessions.removeValue(forKey: sessionId) else { return }
        defer { sessions[sessionId] = session }
        let owner = session.streams[streamId]!.wire.connectionId
        sendEvent(.mediaFailed(MediaFailure(streamId: streamId, subscriberId: nil,
                                            message: "the media server ended the stream's media connection: \(reason)")),
                  to: owner, in: session)
        log.log(.warning, "media.legFailed", session: sessionId, connection: owner, ["stream": streamId, "reason": reason])
        removeStream(streamId, from: &session, reason: "networkDisconnected")
    }

    private func subscriberLegEnded(_ subscriberId: String, reason: String) {
        guard let sessionId = sessions.first(where: { $0.value.subscriptions[subscriberId] != nil })?.key,
              var session = sessions.removeValue(forKey: sessionId) else { return }
        defer { sessions[sessionId] = session }
        let subscription = session.subscriptions.removeValue(forKey: subscriberId)!
        session.connections[subscription.connectionId]?.subscriptions.remove(subscriberId)
        removeLegLater(subscriberId)  // already gone from the SFU; kept for planes that did not remove it
        sendEvent(.mediaFailed(MediaFailure(streamId: subscription.streamId, subscriberId: subscriberId,
                                            message: "the media server ended the subscription's media connection: \(reason)")),
                  to: subscription.connectionId, in: session)
        log.log(.warning, "media.legFailed", session: sessionId, connection: subscription.connectionId,
                ["subscriber": subscriberId, "reason": reason])
    }
}
