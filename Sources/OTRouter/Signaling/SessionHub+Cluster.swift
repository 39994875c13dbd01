import Foundation
import OTSignaling

/// Signaling in a cluster: a client whose session lives at another node is proxied there
/// (``ClusterForwarding``); a session no node has placed yet is placed (claimed in Redis)
/// before its first client is served. A socket a peer node proxies to this node is served
/// here, never proxied again.
extension SessionHub {
    /// Under the lock, once the client's token verified: true when the connect was handed
    /// elsewhere (to a proxy, or to a placement that re-runs it), false to serve it here.
    func placedElsewhere(_ request: ConnectRequest, requestId: Int, state: PeerState, text: String) -> Bool {
        guard let cluster, let forwarding, state.forwardedBy == nil else { return false }
        let peer = state.peer, sessionId = state.sessionId
        switch cluster.believedOwner(of: sessionId) {
        case cluster.nodeId?:
            return false
        case let owner?:
            peers[peer.id] = nil  // the proxy has it now; the owner keeps its connection
            afterUnlock { forwarding.proxy(peer, sessionId: sessionId, owner: owner, connectText: text, connectRequestId: requestId,
                                           resuming: request.resumeConnectionId != nil) }
            log.log(.info, "connection.proxied", session: sessionId, ["owner": owner, "remote": peer.remoteAddress])
            return true
        case nil:
            // Not placed yet: place it (off the lock), then run the connect again. If Redis
            // cannot answer, refuse (SessionHub+ClusterRefusal): another node may own it.
            guard !state.placed else { return false }
            peers[peer.id]?.placed = true
            afterUnlock {
                DispatchQueue.global().async { [self] in
                    cluster.place(sessionId)
                    if cluster.believedOwner(of: sessionId) == nil { return refuseUnplaced(peer, sessionId: sessionId, requestId: requestId) }
                    received(peer, text: text)
                }
            }
            return true
        }
    }
}
