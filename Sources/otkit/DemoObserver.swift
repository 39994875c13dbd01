import Glibc
import OTKit
import OTMedia
import Synchronization

/// The demo's delegate for both sessions, the publisher and the subscriber: it counts
/// decoded frames (reading the test pattern's stamps), keeps the latest receive stats
/// and remembers the first failure. Called on the demo's apiQueue and render thread.
final class DemoObserver: OTSessionDelegate, OTPublisherKitDelegate, OTSubscriberKitDelegate, OTVideoRender,
    OTSubscriberKitNetworkStatsDelegate, @unchecked Sendable {
    struct Snapshot {
        var frames = 0
        var stamped = 0
        var width = 0
        var height = 0
        var videoBytes: UInt64 = 0
        var videoPackets: UInt64 = 0
        var videoLost: UInt64 = 0
        var audioPackets: UInt64 = 0
    }

    private let state = Mutex(Snapshot())
    private let firstFailure = Mutex<String?>(nil)

    /// The first error any delegate reported, if one did.
    var failure: String? { firstFailure.withLock { $0 } }
    /// The counts so far.
    func snapshot() -> Snapshot { state.withLock { $0 } }

    /// Polls `done` for up to 15 s; throws naming `what` when it does not happen.
    func wait(_ what: String, _ done: () -> Bool) throws {
        for _ in 0..<300 {
            if done() { return }
            if let failure { throw DemoError(failure) }
            usleep(50_000)
        }
        throw DemoError("timed out waiting for \(what)")
    }

    private func fail(_ text: String) { firstFailure.withLock { if $0 == nil { $0 = text } } }

    func sessionDidConnect(_ session: OTSession) {}
    func sessionDidDisconnect(_ session: OTSession) {}
    func session(_ session: OTSession, didFailWithError error: OTError) { fail("session: \(error)") }
    func session(_ session: OTSession, streamCreated stream: OTStream) {}
    func session(_ session: OTSession, streamDestroyed stream: OTStream) {}
    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) { fail("publisher: \(error)") }
    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) { fail("subscriber: \(error)") }

    func renderVideoFrame(_ frame: OTVideoFrame) {
        let stamped = FrameNumberStamp.read(from: frame.videoFrame) != nil
        state.withLock {
            $0.frames += 1
            if stamped { $0.stamped += 1 }
            $0.width = frame.videoFrame.width
            $0.height = frame.videoFrame.height
        }
    }

    func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats) {
        state.withLock {
            $0.videoBytes = stats.videoBytesReceived
            $0.videoPackets = stats.videoPacketsReceived
            $0.videoLost = stats.videoPacketsLost
        }
    }

    func subscriber(_ subscriber: OTSubscriberKit, audioNetworkStatsUpdated stats: OTSubscriberKitAudioNetworkStats) {
        state.withLock { $0.audioPackets = stats.audioPacketsReceived }
    }
}
