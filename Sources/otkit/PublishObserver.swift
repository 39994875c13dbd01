import Foundation
import OTKit

/// The publish command's delegate for its session and publisher: what happened (for
/// the main loop to act on) and the latest stats (for the status line). Called on the
/// command's API queue; read from the main thread.
final class PublishObserver: OTSessionDelegate, OTPublisherKitDelegate, OTPublisherKitNetworkStatsDelegate,
    OTPublisherKitAudioLevelDelegate, OTPublisherKitRtcStatsReportDelegate, @unchecked Sendable {
    /// The counters the status line shows.
    struct Stats {
        var connected = false
        var ended = false
        var reconnecting = false
        var streamId: String?
        var streamDestroyed = false
        var lastError: OTError?
        var videoBytes: Int64 = 0
        var videoPackets: Int64 = 0
        var videoLost: Int64 = 0
        var audioPackets: Int64 = 0
        var audioLevel: Float = 0
        var reconnects = 0
        /// The video round trip the receiver's reports give, seconds (nil: none yet).
        var roundTripSeconds: Double?
    }

    private let lock = Lock()
    private var stats = Stats()
    /// Where events are reported.
    let reporter: Reporter

    init(reporter: Reporter) { self.reporter = reporter }

    /// A copy of the current state.
    func snapshot() -> Stats { lock.locked { stats } }

    /// Clears the per-attempt state before a new connection (keeps the reconnect count).
    func reset() { lock.locked { stats = Stats(reconnects: stats.reconnects) } }

    /// Counts a reconnect attempt of the command's own loop.
    func countReconnect() { lock.locked { stats.reconnects += 1 } }

    func sessionDidConnect(_ session: OTSession) {
        lock.locked { stats.connected = true }
        reporter.event("connected", "connected to session \(session.sessionId) as \(session.connection?.connectionId ?? "?")",
                       [("connectionId", .text(session.connection?.connectionId ?? ""))])
    }

    func sessionDidDisconnect(_ session: OTSession) {
        lock.locked { stats.connected = false; stats.ended = true }
        reporter.event("disconnected", "disconnected from the session")
    }

    func session(_ session: OTSession, didFailWithError error: OTError) {
        lock.locked { stats.lastError = error; stats.ended = stats.ended || !stats.connected }
        reporter.event("session_error", "session error \(error.code): \(error.message)", [("code", .int(Int(error.code)))])
    }

    func sessionDidBeginReconnecting(_ session: OTSession) {
        lock.locked { stats.reconnecting = true; stats.reconnects += 1 }
        reporter.event("reconnecting", "connection lost; reconnecting")
    }

    func sessionDidReconnect(_ session: OTSession) {
        lock.locked { stats.reconnecting = false }
        reporter.event("reconnected", "reconnected; the stream goes on")
    }

    /// The RTCStats report the status loop asks for each second: keeps the video
    /// `remote-inbound-rtp` entry's `roundTripTime` (from the receiver's RTCP reports).
    func publisher(_ publisher: OTPublisherKit, rtcStatsReport stats: [OTPublisherRtcStats]) {
        for leg in stats {
            guard let reports = try? JSONSerialization.jsonObject(with: Data(leg.jsonArrayOfReports.utf8)) as? [[String: Any]] else { continue }
            for report in reports where report["type"] as? String == "remote-inbound-rtp" && report["kind"] as? String == "video" {
                if let rtt = report["roundTripTime"] as? Double { lock.locked { self.stats.roundTripSeconds = rtt } }
            }
        }
    }

    func session(_ session: OTSession, streamCreated stream: OTStream) {}
    func session(_ session: OTSession, streamDestroyed stream: OTStream) {}

    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) {
        lock.locked { stats.lastError = error }
        reporter.event("publisher_error", "publisher error \(error.code): \(error.message)", [("code", .int(Int(error.code)))])
    }

    func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream) {
        lock.locked { stats.streamId = stream.streamId }
        reporter.event("published", "publishing stream \(stream.streamId)", [("streamId", .text(stream.streamId))])
    }

    func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream) {
        lock.locked { stats.streamDestroyed = true }
        reporter.event("unpublished", "stream \(stream.streamId) ended", [("streamId", .text(stream.streamId))])
    }

    func muteForced(_ publisher: OTPublisherKit) {
        reporter.event("mute_forced", "a moderator muted this publisher's audio")
    }

    func publisher(_ publisher: OTPublisherKit, videoNetworkStatsUpdated stats: [OTPublisherKitVideoNetworkStats]) {
        guard let video = stats.first else { return }
        lock.locked {
            self.stats.videoBytes = video.videoBytesSent
            self.stats.videoPackets = video.videoPacketsSent
            self.stats.videoLost = video.videoPacketsLost
        }
    }

    func publisher(_ publisher: OTPublisherKit, audioNetworkStatsUpdated stats: [OTPublisherKitAudioNetworkStats]) {
        guard let audio = stats.first else { return }
        lock.locked { self.stats.audioPackets = audio.audioPacketsSent }
    }

    func publisher(_ publisher: OTPublisherKit, audioLevelUpdated audioLevel: Float) {
        lock.locked { stats.audioLevel = audioLevel }
    }
}
