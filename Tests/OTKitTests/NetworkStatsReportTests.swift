import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// Statistics through the real router and SFU: the network-stats delegates keep coming
/// (one delivery per stats tick) with counters that only grow and a fixed start time;
/// `getRtcStatsReport()` gives JSON in browsers' RTCStats shape whose counters are the
/// pipelines' real, nonzero ones once media has flowed.
@Suite(.serialized)
struct NetworkStatsReportTests {
    static let project = ProjectCredentials(apiKey: "4732", apiSecret: "0123456789abcdef0123456789abcdef01234732")
    private let kit = SessionTestKit(project: Self.project)

    /// Every delivery, in order (apiQueue → test).
    final class StatsLog: OTPublisherKitNetworkStatsDelegate, OTSubscriberKitNetworkStatsDelegate,
        OTPublisherKitRtcStatsReportDelegate, OTSubscriberKitRtcStatsReportDelegate, @unchecked Sendable {
        let publisherVideo = Mutex<[OTPublisherKitVideoNetworkStats]>([])
        let publisherAudio = Mutex<[OTPublisherKitAudioNetworkStats]>([])
        let subscriberVideo = Mutex<[OTSubscriberKitVideoNetworkStats]>([])
        let subscriberAudio = Mutex<[OTSubscriberKitAudioNetworkStats]>([])
        let publisherReports = Mutex<[[OTPublisherRtcStats]]>([])
        let subscriberReports = Mutex<[String]>([])

        func publisher(_ publisher: OTPublisherKit, videoNetworkStatsUpdated stats: [OTPublisherKitVideoNetworkStats]) {
            publisherVideo.withLock { $0.append(contentsOf: stats) }
        }
        func publisher(_ publisher: OTPublisherKit, audioNetworkStatsUpdated stats: [OTPublisherKitAudioNetworkStats]) {
            publisherAudio.withLock { $0.append(contentsOf: stats) }
        }
        func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats) {
            subscriberVideo.withLock { $0.append(stats) }
        }
        func subscriber(_ subscriber: OTSubscriberKit, audioNetworkStatsUpdated stats: OTSubscriberKitAudioNetworkStats) {
            subscriberAudio.withLock { $0.append(stats) }
        }
        func publisher(_ publisher: OTPublisherKit, rtcStatsReport stats: [OTPublisherRtcStats]) {
            publisherReports.withLock { $0.append(stats) }
        }
        func subscriber(_ subscriber: OTSubscriberKit, rtcStatsReport jsonArrayOfReports: String) {
            subscriberReports.withLock { $0.append(jsonArrayOfReports) }
        }
    }

    @Test func statsGrowEveryTickAndTheRtcReportCarriesRealCounters() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        let device = ToneLoopDevice(frequency: 440)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let log = StatsLog()

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 30)
        publisher.networkStatsDelegate = log
        publisher.rtcStatsReportDelegate = log

        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)
        let (subscriber, render) = try kit.subscribeReadingFrameNumbers(sessionB, b, try #require(sessionB.streams[streamId]))
        subscriber.networkStatsDelegate = log
        subscriber.rtcStatsReportDelegate = log

        // Network stats: at least four ticks on each side.
        #expect(b.wait(20) { _ in log.subscriberVideo.withLock { $0.count } >= 4 && log.publisherVideo.withLock { $0.count } >= 4 },
                "stats keep coming")
        #expect(b.wait(20) { _ in render.seen.count >= 30 }, "video flows: \(render.seen.count) frames")

        let sent = log.publisherVideo.withLock { $0 }
        let sentAudio = log.publisherAudio.withLock { $0 }
        #expect(sent.count == sentAudio.count || sent.count == sentAudio.count + 1 || sent.count + 1 == sentAudio.count,
                "audio and video stats come together")
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0.videoPacketsSent <= $1.videoPacketsSent && $0.videoBytesSent <= $1.videoBytesSent })
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp }, "timestamps increase")
        #expect(Set(sent.map(\.startTime)).count == 1, "one start time")
        #expect((sent.first?.startTime ?? 0) <= (sent.first?.timestamp ?? 0))
        #expect((sent.last?.videoPacketsSent ?? 0) > (sent.first?.videoPacketsSent ?? 0), "video packets sent grow")
        #expect((sentAudio.last?.audioPacketsSent ?? 0) > (sentAudio.first?.audioPacketsSent ?? 0), "audio packets sent grow")

        let received = log.subscriberVideo.withLock { $0 }
        let receivedAudio = log.subscriberAudio.withLock { $0 }
        #expect(zip(received, received.dropFirst()).allSatisfy {
            $0.videoPacketsReceived <= $1.videoPacketsReceived && $0.videoBytesReceived <= $1.videoBytesReceived && $0.timestamp < $1.timestamp
        })
        #expect((received.last?.videoPacketsReceived ?? 0) > (received.first?.videoPacketsReceived ?? 0), "video packets received grow")
        #expect((receivedAudio.last?.audioBytesReceived ?? 0) > (receivedAudio.first?.audioBytesReceived ?? 0), "audio bytes received grow")

        // The RTC stats reports.
        publisher.getRtcStatsReport()
        subscriber.getRtcStatsReport()
        #expect(b.wait { _ in log.publisherReports.withLock { $0.count } == 1 && log.subscriberReports.withLock { $0.count } == 1 })
        let publisherReport = try #require(log.publisherReports.withLock { $0.first })
        #expect(publisherReport.count == 1 && publisherReport.first?.connectionId == "")
        let outbound = try Self.parse(try #require(publisherReport.first?.jsonArrayOfReports))
        let inbound = try Self.parse(try #require(log.subscriberReports.withLock { $0.first }))

        #expect(Set(outbound.map { $0["id"] as? String ?? "" }).count == outbound.count, "ids are unique")
        #expect(Set(outbound.compactMap { $0["type"] as? String }) == ["codec", "outbound-rtp", "remote-inbound-rtp", "transport"])
        let videoOut = try #require(outbound.first { $0["type"] as? String == "outbound-rtp" && $0["kind"] as? String == "video" })
        #expect(Self.number(videoOut, "packetsSent") > 0 && Self.number(videoOut, "bytesSent") > 0)
        #expect(Self.number(videoOut, "framesEncoded") >= 30 && Self.number(videoOut, "keyFramesEncoded") >= 1)
        #expect(Self.number(videoOut, "frameWidth") == 160 && Self.number(videoOut, "frameHeight") == 120)
        #expect(Self.number(videoOut, "framesPerSecond") > 0)
        #expect((videoOut["ssrc"] as? NSNumber)?.uint32Value ?? 0 != 0)
        let remoteVideo = try #require(outbound.first { $0["type"] as? String == "remote-inbound-rtp" && $0["kind"] as? String == "video" })
        #expect(Self.number(remoteVideo, "roundTripTime") > 0, "the router's receiver reports carry LSR/DLSR: \(remoteVideo)")
        let audioOut = try #require(outbound.first { $0["type"] as? String == "outbound-rtp" && $0["kind"] as? String == "audio" })
        #expect(Self.number(audioOut, "packetsSent") > 0)
        let videoCodec = try #require(outbound.first { $0["id"] as? String == videoOut["codecId"] as? String })
        #expect(videoCodec["mimeType"] as? String == "video/VP8" && Self.number(videoCodec, "clockRate") == 90_000)
        let transportOut = try #require(outbound.first { $0["type"] as? String == "transport" })
        #expect(Self.number(transportOut, "bytesSent") == Self.number(videoOut, "bytesSent") + Self.number(audioOut, "bytesSent"))

        #expect(Set(inbound.compactMap { $0["type"] as? String }) == ["codec", "inbound-rtp", "transport"])
        let videoIn = try #require(inbound.first { $0["type"] as? String == "inbound-rtp" && $0["kind"] as? String == "video" })
        #expect(Self.number(videoIn, "packetsReceived") > 0 && Self.number(videoIn, "bytesReceived") > 0)
        #expect(Self.number(videoIn, "framesDecoded") >= 30)
        #expect(Self.number(videoIn, "frameWidth") == 160 && Self.number(videoIn, "frameHeight") == 120)
        #expect(videoIn["jitter"] is NSNumber && videoIn["packetsLost"] is NSNumber)
        let audioIn = try #require(inbound.first { $0["type"] as? String == "inbound-rtp" && $0["kind"] as? String == "audio" })
        #expect(Self.number(audioIn, "packetsReceived") > 0)
        let timestamp = Self.number(videoIn, "timestamp")
        #expect(timestamp > 1_600_000_000_000, "Unix milliseconds")

        sessionB.disconnect()
        sessionA.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
        #expect(a.wait { $0.last == "didDisconnect" })
    }

    static func parse(_ json: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
    }

    static func number(_ report: [String: Any], _ key: String) -> Double {
        (report[key] as? NSNumber)?.doubleValue ?? -1
    }
}
