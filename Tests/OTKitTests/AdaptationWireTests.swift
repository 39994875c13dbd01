import Foundation
@testable import OTMedia
import OTSignaling
import Testing
@testable import OTKit

/// The optional `subscriberAudioFallback` field of `publish` and the RTC report builder's
/// shape, without a network.
struct AdaptationWireTests {
    @Test func subscriberAudioFallbackRoundTripsAndIsOptional() throws {
        var request = PublishRequest(name: "cam", hasAudio: true, hasVideo: true, audioTrack: true, videoTrack: true,
                                     videoWidth: 640, videoHeight: 480, videoType: "camera", subscriberAudioFallback: false)
        let text = SignalingCodec.encode(.publish(request), requestId: 7)
        #expect(text.contains("\"subscriberAudioFallback\":false"))
        let (decoded, id) = try SignalingCodec.decodeClientMessage(text)
        #expect(decoded == .publish(request) && id == 7)

        request.subscriberAudioFallback = nil
        let absent = SignalingCodec.encode(.publish(request), requestId: 8)
        #expect(!absent.contains("subscriberAudioFallback"), "nil is left out")
        // An older client's publish (no such field) still decodes, as nil (the router reads it as true).
        let old = #"{"type":"publish","requestId":9,"body":{"name":"cam","hasAudio":true,"hasVideo":true,"audioTrack":true,"videoTrack":true,"videoWidth":640,"videoHeight":480,"videoType":"camera"}}"#
        guard case .publish(let parsed) = try SignalingCodec.decodeClientMessage(old).message else {
            Issue.record("not a publish"); return
        }
        #expect(parsed.subscriberAudioFallback == nil && parsed.relayedLeg == nil)
    }

    @Test func rtcReportHasBrowserShapeAndUnitsAndLeavesUnknownsOut() throws {
        var video = StreamCountersFixture.snapshot(packets: 100, bytes: 90_000, frames: 30)
        video.jitterNanoseconds = 4_000_000
        video.roundTripNanoseconds = 0  // unknown: no roundTripTime
        let stream = RTCStatsReport.Stream(kind: "video", ssrc: 42, payloadType: 96, clockRate: 90_000, counters: video,
                                           frameWidth: 320, frameHeight: 0, framesPerSecond: 29.971)
        let reports = try NetworkStatsReportTests.parse(RTCStatsReport.publisher([stream], timestamp: 1_700_000_000_123))
        #expect(reports.map { $0["type"] as? String ?? "" } == ["codec", "outbound-rtp", "remote-inbound-rtp", "transport"])
        let remote = reports[2]
        #expect(NetworkStatsReportTests.number(remote, "jitter") == 0.004, "jitter in seconds")
        #expect(remote["roundTripTime"] == nil, "an unknown round-trip time is left out")
        #expect(remote["localId"] as? String == reports[1]["id"] as? String)
        let outbound = reports[1]
        #expect(NetworkStatsReportTests.number(outbound, "frameWidth") == 320)
        #expect(outbound["frameHeight"] == nil, "an unknown size is left out")
        #expect(NetworkStatsReportTests.number(outbound, "framesPerSecond") == 29.97)
        #expect(NetworkStatsReportTests.number(outbound, "timestamp") == 1_700_000_000_123)

        var meter = FrameRateMeter(start: 10)
        #expect(meter.rate(frames: 30, now: 11) == 30)
        #expect(meter.rate(frames: 45, now: 12) == 15)
        #expect(meter.rate(frames: 45, now: 12) == nil, "an empty interval has no rate")
    }
}

extension AdaptationWireTests {
    @Test func relayedPublishersAnnounceTheirAddressTowardTheRouter() {
        #expect(LocalRoute.host(ofURL: "http://10.1.2.3:4000") == "10.1.2.3")
        #expect(LocalRoute.host(ofURL: "wss://router.example:443/") == "router.example")
        #expect(LocalRoute.host(ofURL: "not a url") == nil)
        #expect(LocalRoute.address(toward: "127.0.0.1") == "127.0.0.1", "toward a local router: loopback")
        #expect(LocalRoute.address(toward: "127.0.0.9") == "127.0.0.1")
    }
}

/// Counter snapshots for report tests.
enum StreamCountersFixture {
    static func snapshot(packets: UInt64, bytes: UInt64, frames: UInt64) -> StreamCounters.Snapshot {
        StreamCounters.Snapshot(packets: packets, bytes: bytes, packetsLost: 0, nacks: 0, retransmissions: 0, keyframeRequests: 0,
                        keyframes: 1, frames: frames, jitterNanoseconds: 0, roundTripNanoseconds: 0, badPackets: 0)
    }
}
