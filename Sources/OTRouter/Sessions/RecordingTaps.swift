import OTRecording
import Synchronization

/// Which archives record which stream: every archive's sink for a stream combined into the
/// one sink the stream's forwarding thread feeds (`MediaForwarding.setRecorder`) — one
/// archive's sink as it is, several through a `RecordingFanOut` — so an individual and a
/// composed archive, or two archives with different tags, record the same stream side by
/// side. Cost: a short lock and one `setRecorder` per change; nothing per packet.
final class RecordingTaps: Sendable {
    private struct Tap: Sendable {
        let owner: String
        let sink: any RecordingSink
    }

    private let taps = Mutex<[String: [Tap]]>([:])

    /// Sets (nil: removes) `owner`'s sink for `streamId` and hands the combination to
    /// `media`. False when `media` forwards no such stream; nothing is kept for it then.
    @discardableResult
    func set(streamId: String, owner: String, _ sink: (any RecordingSink)?, media: any MediaForwarding) -> Bool {
        taps.withLock { all in
            var list = all[streamId] ?? []
            list.removeAll { $0.owner == owner }
            if let sink { list.append(Tap(owner: owner, sink: sink)) }
            let combined: (any RecordingSink)? = switch list.count {
            case 0: nil
            case 1: list[0].sink
            default: RecordingFanOut(list.map(\.sink))
            }
            guard media.setRecorder(streamId: streamId, combined) else {
                all[streamId] = nil  // the stream is gone: so are its taps
                return false
            }
            all[streamId] = list.isEmpty ? nil : list
            return true
        }
    }
}
