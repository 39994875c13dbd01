import Dispatch
import OTMedia
import Synchronization

/// The receiving router's record of one cascaded stream (see `MediaRouter+CascadeIngress`):
/// where it comes from, the link its publisher leg shares, the linger timer that closes it
/// when no local subscriber is left, and the local subscribers' preferences whose
/// aggregate travels upstream. Cost: a timer on the router's cascade queue, a small map.
final class CascadeIngress: Sendable {
    /// The stream's id (the same on both nodes).
    let streamId: String
    /// This router's node id, as the origin knows it.
    let node: String
    /// Where the stream comes from.
    let origin: any CascadeOrigin
    /// The publisher leg's link (consent, ending).
    let link: CascadeIngressLink
    private struct State: @unchecked Sendable {
        var timer: DispatchSourceTimer?
        var idleTicks = 0
        var preferences: [String: (width: Int?, height: Int?, frameRate: Double?)] = [:]
        var sent: (width: Int?, height: Int?, frameRate: Double?)?
    }
    private let state = Mutex(State())

    init(streamId: String, node: String, origin: any CascadeOrigin, link: CascadeIngressLink) {
        self.streamId = streamId
        self.node = node
        self.origin = origin
        self.link = link
    }

    /// Starts the linger check on `queue`: every `linger` ns `idle()` is asked; after two
    /// idle answers in a row (no subscriber for at least one whole period) `close` runs once.
    func startLinger(every linger: UInt64, on queue: DispatchQueue, idle: @escaping @Sendable () -> Bool,
                     close: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .nanoseconds(Int(linger)), repeating: .nanoseconds(Int(linger)))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let isIdle = idle()  // the router's lock, not under ours (the router ends us under its own)
            let due = self.state.withLock { state -> Bool in
                state.idleTicks = isIdle ? state.idleTicks + 1 : 0
                return state.idleTicks >= 2
            }
            if due { close() }
        }
        state.withLock { $0.timer = timer }
        timer.resume()
    }

    /// The ingress is over (its group removed): the timer stops. Any thread.
    func ended() {
        state.withLock { state in
            state.timer?.cancel()
            state.timer = nil
        }
    }

    /// Notes one local subscriber's preferences and returns the new aggregate when it
    /// changed (the largest width, height and frame rate over `current` subscribers; nil
    /// fields: someone wants no limit), else nil. Cost: a pass over the subscribers.
    func aggregate(subscriberId: String, width: Int?, height: Int?, frameRate: Double?, current: [String])
        -> (width: Int?, height: Int?, frameRate: Double?)? {
        state.withLock { state in
            state.preferences[subscriberId] = (width, height, frameRate)
            let live = Set(current)
            state.preferences = state.preferences.filter { live.contains($0.key) }
            var width: Int? = 0, height: Int? = 0, frameRate: Double? = 0
            for id in current {
                guard let p = state.preferences[id] else { width = nil; height = nil; frameRate = nil; break }
                width = p.width.flatMap { w in width.map { max($0, w) } }
                height = p.height.flatMap { h in height.map { max($0, h) } }
                frameRate = p.frameRate.flatMap { f in frameRate.map { max($0, f) } }
            }
            let next = (width: width, height: height, frameRate: frameRate)
            if let sent = state.sent, sent.width == next.width, sent.height == next.height, sent.frameRate == next.frameRate {
                return nil
            }
            state.sent = next
            return next
        }
    }
}
