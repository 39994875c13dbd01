import Foundation
import OTNet
import OTSignaling

/// A connect the cluster cannot place: the session is not known to this node and Redis,
/// which says which node owns it, does not answer. Serving it here could split the
/// session in two (its owner may hold its other clients), so the client is refused with
/// OpenTok's "connect failed" (1006) and a message saying why; it may try again.
extension SessionHub {
    /// Refuses `peer`'s connect to `sessionId` (answering `requestId`), closes its socket
    /// (1011) and counts it. Takes the lock. Cost: one message and a close.
    func refuseUnplaced(_ peer: any WebSocketPeer, sessionId: String, requestId: Int) {
        cluster?.countRefusedWithoutRedis()
        perform {
            guard peers[peer.id] != nil else { return }  // the socket went meanwhile
            let message = "cannot place session \(sessionId): this node does not know it and the cluster's Redis does not answer; try again"
            send(.error(ErrorReply(code: 1006, message: message)), requestId: requestId, to: peer)
            close(peer, code: 1011, reason: "cluster unavailable")
            peers[peer.id] = nil
            log.log(.warning, "connection.refusedWithoutRedis", session: sessionId, ["remote": peer.remoteAddress])
        }
    }
}
