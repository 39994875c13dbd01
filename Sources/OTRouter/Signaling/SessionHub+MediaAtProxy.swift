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
        var record = SubscriptionRecord(id: subscriberId, streamId: request.streamId, connectionId: connectionId,
                                        audio: request.subscribeToAudio, video: request.subscribeToVideo)
        record.mediaNode = node
        session.subscriptions[record.id] = record
        session.connections[connectionId]!.subscriptions.insert(record.id)
        reply(.subscribed(SubscribedReply(subscriberId: record.id, streamId: record.streamId, media: nil, mediaNode: node)))
        log.log(.debug, "subscriber.mediaAtProxy", session: session.id, connection: connectionId,
                ["subscriber": subscriberId, "stream": request.streamId, "node": node])
    }

    /// A connection resumed: the legs a proxying node served for its subscriptions went
    /// with the socket that node proxied (whichever node it resumed through), so each such
    /// subscription ends here too and the client hears `mediaFailed` with `resubscribe`
    /// (OTKit subscribes again by itself, through whichever node its socket is on now, and
    /// the app sees only `subscriberDidDisconnect`/`subscriberDidReconnect`; a client that
    /// does not reports subscriber error 1600). Under the lock, after the `connected` reply
    /// and its replay. Cost: a pass over the connection's subscriptions.
    func mediaAtProxyLost(connectionId: String, in session: inout SessionRecord) {
        guard let connection = session.connections[connectionId] else { return }
        for subscriberId in connection.subscriptions.sorted() {
            guard let node = session.subscriptions[subscriberId]?.mediaNode,
                  let record = session.subscriptions.removeValue(forKey: subscriberId) else { continue }
            session.connections[connectionId]!.subscriptions.remove(subscriberId)
            sendEvent(.mediaFailed(MediaFailure(streamId: record.streamId, subscriberId: subscriberId,
                                                message: "the router that served this subscription's media (\(node)) let it go when the client's socket closed; subscribe again",
                                                resubscribe: true)),
                      to: connectionId, in: session)
            log.log(.info, "subscriber.mediaAtProxyLost", session: session.id, connection: connectionId,
                    ["subscriber": subscriberId, "node": node])
        }
    }
}
