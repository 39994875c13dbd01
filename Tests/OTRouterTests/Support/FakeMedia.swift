import OTMedia
import OTRouter
import OTSignaling
import Synchronization

/// A MediaForwarding test double for the signaling plane's tests: returns fixed legs and
/// records what the router asked for (the real SFU has its own tests).
final class FakeMedia: MediaForwarding {
    struct Calls {
        var publishers: Set<String> = []
        var subscribers: [String: String] = [:]  // subscriber id → stream id
        var muted: Set<String> = []
        var forwarding: [String: (audio: Bool, video: Bool)] = [:]  // subscriber id → what setForwarding last said
        var log: [String] = []
        var preferences: [String: [Double?]] = [:]  // subscriber id → [width, height, frame rate]
        var simulcastLayers: [String: Int] = [:]  // stream id → encodings asked for
        var qualityHandler: SubscriberQualityHandler?
    }

    let calls = Mutex(Calls())
    private let nextPort = Atomic<Int>(40000)

    func addPublisher(streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg {
        calls.withLock { $0.publishers.insert(streamId); $0.log.append("addPublisher \(streamId)") }
        return leg(audio: audio, video: video)
    }

    func addPublisher(streamId: String, audio: Bool, video: Bool, simulcastLayers: Int) throws(MediaError) -> WireMediaLeg {
        calls.withLock { $0.simulcastLayers[streamId] = simulcastLayers }
        return try addPublisher(streamId: streamId, audio: audio, video: video)
    }

    func setPreferences(subscriberId: String, width: Int?, height: Int?, frameRate: Double?) {
        calls.withLock { $0.preferences[subscriberId] = [width.map(Double.init), height.map(Double.init), frameRate] }
    }

    func setSubscriberQualityHandler(_ handler: SubscriberQualityHandler?) { calls.withLock { $0.qualityHandler = handler } }

    /// Plays the SFU deciding something about a subscriber's video.
    func reportQuality(_ event: SubscriberQualityEvent) { calls.withLock { $0.qualityHandler }?(event) }

    func removePublisher(streamId: String) {
        calls.withLock { calls in
            calls.publishers.remove(streamId)
            calls.subscribers = calls.subscribers.filter { $0.value != streamId }
            calls.muted.remove(streamId)
            calls.log.append("removePublisher \(streamId)")
        }
    }

    func addSubscriber(subscriberId: String, streamId: String, audio: Bool, video: Bool) throws(MediaError) -> WireMediaLeg {
        calls.withLock { $0.subscribers[subscriberId] = streamId; $0.log.append("addSubscriber \(subscriberId)") }
        return leg(audio: audio, video: video)
    }

    func removeSubscriber(subscriberId: String) {
        calls.withLock { $0.subscribers[subscriberId] = nil; $0.log.append("removeSubscriber \(subscriberId)") }
    }

    func setForwarding(subscriberId: String, audio: Bool, video: Bool) {
        calls.withLock { $0.forwarding[subscriberId] = (audio, video); $0.log.append("setForwarding \(subscriberId) \(audio) \(video)") }
    }

    func setAudioMuted(streamId: String, _ muted: Bool) {
        calls.withLock { if muted { $0.muted.insert(streamId) } else { $0.muted.remove(streamId) } }
    }

    var totals: ForwardingCounters {
        var counters = ForwardingCounters()
        counters.packetsIn = 11
        counters.packetsOut = 22
        counters.packetsDropped = 3
        counters.mutedAudioDropped = 4
        counters.badPackets = 5
        return counters
    }

    func counters(streamId: String) -> ForwardingCounters? { nil }

    private func leg(audio: Bool, video: Bool) -> WireMediaLeg {
        WireMediaLeg(host: "127.0.0.1", port: nextPort.add(1, ordering: .relaxed).newValue, profile: "AEAD_AES_128_GCM",
                     clientKey: "Y2xpZW50", routerKey: "cm91dGVy", audioSSRC: audio ? 1111 : nil, videoSSRC: video ? 2222 : nil)
    }

    var muted: Set<String> { calls.withLock { $0.muted } }
    var publishers: Set<String> { calls.withLock { $0.publishers } }
    var subscribers: [String: String] { calls.withLock { $0.subscribers } }
    var forwarding: [String: (audio: Bool, video: Bool)] { calls.withLock { $0.forwarding } }
}
