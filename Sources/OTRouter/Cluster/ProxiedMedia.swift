import Foundation
import OTMedia
import OTSignaling
import Synchronization

/// The media of one proxied client served by this node (docs/scale.md, "Media follows the
/// serving node"): its native subscriptions to routed streams get their legs HERE, fed by
/// one cascade ingress per stream from the session's owner, instead of at the owner.
///
/// Client → owner (``outgoing(_:)``): a `subscribe` goes on marked `mediaAtProxy` (a
/// browser's `sdp: true` goes unmarked: browsers keep their media at the owner), whatever
/// the client put there overwritten; `unsubscribe`, `subscriptionChanged` and
/// `subscriberPreferences` of a subscriber served here are applied to the local leg and go
/// on too, so the owner's records stay right. Owner → client (``incoming(_:)``): the
/// owner's `subscribed` reply naming this node (`mediaNode`) needs a leg
/// (``openLeg(_:for:requestId:)``: the cascade ingress opened or reused, then the leg under
/// the owner's subscriber id, then the reply with this leg, still naming this node); `streamDestroyed` and
/// `disconnected` remove the local legs they end; replies to this node's own requests are
/// swallowed. ``closeAll()`` removes every local leg (the socket closed, the owner closed
/// it, the router stops).
///
/// Cost: messages are decoded only when their text may matter (a substring check first);
/// one dictionary per client. The set-up blocks (the origin's HTTP answer, ICE + DTLS for
/// a new ingress): the caller runs it off every lock and off the socket threads.
final class ProxiedMedia: Sendable {
    /// The router the legs open on.
    let router: MediaRouter
    /// This node's id, as the owner's cascade egress knows it.
    let node: String
    private let secret: String
    private let opened: @Sendable (_ success: Bool) -> Void

    /// A subscriber leg served here: its stream and what it forwards now.
    private struct Leg {
        var streamId: String
        var audio: Bool
        var video: Bool
    }

    private struct State {
        var origin: String?
        var pending: [Int: SubscribeRequest] = [:]
        var legs: [String: Leg] = [:]
        var ownRequests: Set<Int> = []
        var nextOwnRequest = -1
        var closed = false
    }
    private let state = Mutex(State())

    /// What to do with one message from the owner.
    enum Incoming {
        /// Hand it to the client as it is.
        case pass
        /// Drop it (a reply to this node's own request).
        case swallow
        /// Open the leg, then hand the client the reply with it (`openLeg`).
        case needsLeg(SubscribedReply, SubscribeRequest, requestId: Int)
    }

    /// Media for one client on `router`, whose cascades are asked of the owner with the
    /// cluster `secret` as node `node`; `opened` counts each set-up (true: a leg opened).
    init(router: MediaRouter, node: String, secret: String, opened: @escaping @Sendable (_ success: Bool) -> Void) {
        self.router = router
        self.node = node
        self.secret = secret
        self.opened = opened
    }

    /// The owner's REST base URL (where its `POST /cluster/v1/cascade` is), once known.
    func setOrigin(_ baseURL: String) { state.withLock { $0.origin = baseURL } }

    /// The subscriber ids with a leg here now (tests, logs). Cost: a copy of the keys.
    var subscriberIds: [String] { state.withLock { Array($0.legs.keys) } }

    // MARK: - Client to owner

    /// One client message on its way to the owner: applied to the local legs when it
    /// concerns them; returns the text to send on (a `subscribe` re-encoded with its mark).
    func outgoing(_ text: String) -> String {
        guard text.contains("subscri") || text.contains("disconnect") else { return text }
        guard let (message, requestId) = try? SignalingCodec.decodeClientMessage(text) else { return text }
        switch message {
        case .subscribe(var request):
            let wanted = request.sdp != true
            request.mediaAtProxy = wanted ? true : nil
            state.withLock { state in
                if wanted { state.pending[requestId] = request } else { state.pending[requestId] = nil }
            }
            return SignalingCodec.encode(.subscribe(request), requestId: requestId)
        case .unsubscribe(let subscriberId):
            if state.withLock({ $0.legs.removeValue(forKey: subscriberId) }) != nil {
                router.removeSubscriber(subscriberId: subscriberId)
            }
        case .subscriptionChanged(let change):
            let now = state.withLock { state -> Leg? in
                guard var leg = state.legs[change.subscriberId] else { return nil }
                leg.audio = change.subscribeToAudio ?? leg.audio
                leg.video = change.subscribeToVideo ?? leg.video
                state.legs[change.subscriberId] = leg
                return leg
            }
            if let now { router.setForwarding(subscriberId: change.subscriberId, audio: now.audio, video: now.video) }
        case .subscriberPreferences(let preferences):
            if state.withLock({ $0.legs[preferences.subscriberId] != nil }) {
                router.setPreferences(subscriberId: preferences.subscriberId, width: preferences.preferredWidth,
                                      height: preferences.preferredHeight, frameRate: preferences.preferredFrameRate)
            }
        case .disconnect:
            closeAll()
        default:
            break
        }
        return text
    }

    // MARK: - Owner to client

    /// One owner message on its way to the client: what to do with it (local legs a
    /// `streamDestroyed` or `disconnected` ends are removed here).
    func incoming(_ text: String) -> Incoming {
        let watching = state.withLock { !$0.pending.isEmpty || !$0.legs.isEmpty || !$0.ownRequests.isEmpty }
        guard watching, text.contains("subscribed") || text.contains("streamDestroyed") || text.contains("disconnected")
                || text.contains("\"error\"") || text.contains("\"ok\"") else { return .pass }
        guard let frame = try? SignalingCodec.decodeServerFrame(text) else { return .pass }
        if let requestId = frame.requestId, state.withLock({ $0.ownRequests.remove(requestId) }) != nil { return .swallow }
        switch frame.message {
        case .subscribed(let reply):
            guard let requestId = frame.requestId, let request = state.withLock({ $0.pending.removeValue(forKey: requestId) }) else {
                return .pass
            }
            return reply.mediaNode == node && reply.media == nil ? .needsLeg(reply, request, requestId: requestId) : .pass
        case .error:
            if let requestId = frame.requestId { _ = state.withLock { $0.pending.removeValue(forKey: requestId) } }
        case .streamDestroyed(let streamId, _):
            let gone = state.withLock { state -> [String] in
                let ids = state.legs.filter { $0.value.streamId == streamId }.map(\.key)
                for id in ids { state.legs[id] = nil }
                return ids
            }
            for id in gone { router.removeSubscriber(subscriberId: id) }
        case .disconnected:
            closeAll()
        default:
            break
        }
        return .pass
    }

    /// Opens the leg the owner's `reply` asked this node for (blocking: the cascade
    /// ingress from the owner when the stream does not arrive here yet, then the leg).
    /// Returns the text for the client — the reply with this node's leg, or OpenTok's
    /// 1604 error — and, on failure, an `unsubscribe` for the owner (so its record goes
    /// too; its reply is swallowed). Counted either way.
    func openLeg(_ reply: SubscribedReply, for request: SubscribeRequest, requestId: Int) -> (toClient: String, toOwner: String?) {
        let origin = state.withLock { $0.origin }
        var failure = "the session's node is not known yet"
        var leg: WireMediaLeg?
        if let origin {
            let cascade = CascadeControlOrigin.http(origin, secret: secret)
            // The leg is tried twice: an idle ingress may close (linger) between the two calls.
            for _ in 0..<2 where leg == nil {
                do throws(MediaError) {
                    try router.openCascadeIngress(streamId: reply.streamId, node: node, origin: cascade)
                } catch {
                    failure = error.message
                    break
                }
                do throws(MediaError) {
                    leg = try router.addSubscriber(subscriberId: reply.subscriberId, streamId: reply.streamId,
                                                   audio: request.subscribeToAudio, video: request.subscribeToVideo,
                                                   transport: request.transport)
                } catch {
                    failure = error.message
                }
            }
        }
        guard let leg else {
            opened(false)
            let unsubscribe = state.withLock { state -> String in
                let id = state.nextOwnRequest
                state.nextOwnRequest -= 1
                state.ownRequests.insert(id)
                return SignalingCodec.encode(.unsubscribe(subscriberId: reply.subscriberId), requestId: id)
            }
            let error = ErrorReply(code: 1604, message: "unable to subscribe: this router cannot receive stream \(reply.streamId) from the session's node (\(failure))")
            return (SignalingCodec.encode(.error(error), requestId: requestId), unsubscribe)
        }
        let kept = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.legs[reply.subscriberId] = Leg(streamId: reply.streamId, audio: request.subscribeToAudio, video: request.subscribeToVideo)
            return true
        }
        if !kept { router.removeSubscriber(subscriberId: reply.subscriberId) }
        opened(true)
        var answer = reply
        answer.media = leg  // `mediaNode` stays: the client learns its leg is served here
        return (SignalingCodec.encode(.subscribed(answer), requestId: requestId), nil)
    }

    /// Removes every local leg and keeps none opened later (the client is gone).
    /// Cost: one `removeSubscriber` per leg.
    func closeAll() {
        let gone = state.withLock { state -> [String] in
            state.closed = true
            state.pending = [:]
            defer { state.legs = [:] }
            return Array(state.legs.keys)
        }
        for id in gone { router.removeSubscriber(subscriberId: id) }
    }
}
