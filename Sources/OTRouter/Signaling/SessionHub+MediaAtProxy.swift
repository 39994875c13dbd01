import OTSignaling

/// The owner's half of "media follows the serving node" (docs/scale.md): a client whose
/// socket another node proxies here subscribes to a routed stream, and that node asked to
/// serve the media itself (`SubscribeRequest.mediaAtProxy`, honoured only because the
/// socket's cluster mark verified: `PeerState.forwardedBy`). The owner records the subscription
/// as any other — unsubscribe, force disconnect, the stream or session ending and the
/// counts all work here — but opens no leg: the reply names the proxying node
/// (`SubscribedReply.mediaNode`), which opens the leg on its own router under this
/// subscriber id, fed by one cascade of the stream from this node. The owner's media calls
/// for that id later (forwarding, preferences, removal) find no leg here and do nothing.
extension SessionHub {
    /// Records the subscription without a leg and answers `subscribed` naming `node`.
    /// Under the lock; no I/O. Cost: two dictionary writes and one reply.
    func landMediaAtProxy(_ request: SubscribeRequest, subscriberId: String, node: String, connectionId: String,
                          in session: inout SessionRecord, reply: (ServerMessage) -> Void) {
        let record = SubscriptionRecord(id: subscriberId, streamId: request.streamId, connectionId: connectionId,
                                        audio: request.subscribeToAudio, video: request.subscribeToVideo)
        session.subscriptions[record.id] = record
        session.connections[connectionId]!.subscriptions.insert(record.id)
        reply(.subscribed(SubscribedReply(subscriberId: record.id, streamId: record.streamId, media: nil, mediaNode: node)))
        log.log(.debug, "subscriber.mediaAtProxy", session: session.id, connection: connectionId,
                ["subscriber": subscriberId, "stream": request.streamId, "node": node])
    }
}
