import Dispatch
import OTMedia
import Synchronization

/// What a cascade ingress' publisher leg (`LegEndpoint.cascade`) shares with the control
/// plane: the ICE consent keeper that keeps the leg alive at the origin's edge (checks
/// sent from the forwarding thread's timers, answers handed to it by that thread), the
/// router's cascade counters, and the one-time ending — the origin's BYE (its stream
/// ended) or consent lost — which is reported once, off the forwarding thread.
/// Cost: the keeper's two small buffers and a few words.
final class CascadeIngressLink: Sendable {
    /// The consent freshness checks to the origin's edge (RFC 7675).
    let consent: ICEConsentKeeper
    /// The router's cascade counters.
    let counters: CascadeCounters
    private let ended = Mutex<(@Sendable (String) -> Void)?>(nil)
    private let queue: DispatchQueue

    /// A link whose consent checks go to `peer`, signed for `local`, with `timing`
    /// (RFC 7675's 5 s ± 20 % and 30 s unless given); `queue` is where the ending is reported.
    init(peer: ICEPeer, local: ICECredentials, timing: ICEConsentKeeper.Timing = ICEConsentKeeper.Timing(),
         counters: CascadeCounters, queue: DispatchQueue) {
        self.counters = counters
        self.queue = queue
        let box = WeakBox()
        consent = ICEConsentKeeper(peer: peer, local: local, timing: timing, onConsentLost: { box.link?.originEnded("ICE consent to the origin lapsed") })
        box.link = self
    }

    /// Sets who hears of the ending (once). Cost: a short lock.
    func onEnded(_ handler: @escaping @Sendable (String) -> Void) { ended.withLock { $0 = handler } }

    /// The origin is gone: reports `reason` once, on the link's queue. Any thread.
    func originEnded(_ reason: String) {
        guard let handler = ended.withLock({ handler -> (@Sendable (String) -> Void)? in
            defer { handler = nil }
            return handler
        }) else { return }
        queue.async { handler(reason) }
    }

    /// Breaks the keeper → link cycle without a strong reference.
    private final class WeakBox: @unchecked Sendable {
        weak var link: CascadeIngressLink?
    }
}
