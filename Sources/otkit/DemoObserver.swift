import Glibc
import OTKit
import OTMedia
import Synchronization

/// The demo's delegate for both sessions, the publisher and the subscriber: it counts
/// decoded frames (reading the test pattern's stamps), keeps the latest receive stats
/// and remembers the first failure. Called on the demo's apiQueue and render thread.
final class DemoObserver: OTSessionDelegate, OTPublisherKitDelegate, OTSubscriberKitDelegate, OTVideoRender,
    OTSubscriberKitNetworkStatsDelegate, OTPublisherKitNetworkStatsDelegate, @unchecked Sendable {
    struct Snapshot {
        var frames = 0
        var stamped = 0
        var width = 0
        var height = 0
        var videoBytes: UInt64 = 0
        var videoPackets: UInt64 = 0
        var videoLost: UInt64 = 0
        var audioPackets: UInt64 = 0
        var videoPacketsSent: Int64 = 0
        var latenciesMicroseconds: [Int] = []
    }

    /// When the frame with this test-pattern number was handed to the publisher (monotonic
    /// ns, 0 unknown); set by the demo when it publishes a capture it owns.
    var sentTime: (@Sendable (UInt32) -> UInt64)?

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
    func subscriberDidConnect(toStream subscriber: OTSubscriberKit) {}

    func renderVideoFrame(_ frame: OTVideoFrame) {
        let stamp = FrameNumberStamp.read(from: frame.videoFrame)
        let now = MonotonicClock.nanoseconds()
        let sent = stamp.flatMap { number in sentTime?(number) } ?? 0
        state.withLock {
            $0.frames += 1
            if stamp != nil { $0.stamped += 1 }
            if sent > 0, now > sent, now - sent < 10_000_000_000 { $0.latenciesMicroseconds.append(Int((now - sent) / 1000)) }
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

    func publisher(_ publisher: OTPublisherKit, videoNetworkStatsUpdated stats: [OTPublisherKitVideoNetworkStats]) {
        guard let video = stats.first else { return }
        state.withLock { $0.videoPacketsSent = video.videoPacketsSent }
    }

    func subscriber(_ subscriber: OTSubscriberKit, audioNetworkStatsUpdated stats: OTSubscriberKitAudioNetworkStats) {
        state.withLock { $0.audioPackets = stats.audioPacketsReceived }
    }
}
