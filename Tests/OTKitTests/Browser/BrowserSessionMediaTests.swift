import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 16 acceptance (c) and (d) with media: two headless Chromium tabs on otkit.js and
/// one native OTKit client in one routed session all publish and each decodes the other
/// two's video (connections and signals between the same three are
/// `BrowserSignalingTests`); a native moderator force-mutes a browser's stream and the
/// router forwards none of its audio afterwards, by its own counters and by what a native
/// subscriber receives. A machine without Chromium fails.
@Suite(.serialized) struct BrowserSessionMediaTests {
    static let project = ProjectCredentials(apiKey: "4821", apiSecret: "0123456789abcdef0123456789abcdef01234821")
    let kit = SessionTestKit(project: Self.project)

    /// Waits up to `seconds` for `condition`; false when it never held.
    func eventually(_ seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        try BrowserRig.eventually(seconds, condition)
    }

    /// (c) Two browsers and a native client publish; each sees the other two's streams and
    /// decodes their video.
    @Test func twoBrowsersAndANativeClientSeeAndDecodeEachOthersStreams() throws {
        try BrowserRig.run(kit, fps: 15) { rig in
            let (router, sessionId) = (rig.router, rig.sessionId)
            let first = try rig.tab(data: "browser-1")
            let second = try rig.tab(data: "browser-2")
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            defer { native.disconnect() }

            let small = "{resolution: '320x240', frameRate: 15}"
            let firstStream = try #require(try? first.publish(small).get(), "the first browser publishes")
            let secondStream = try #require(try? second.publish(small).get(), "the second browser publishes")
            let (_, nativeStream) = try kit.publishPattern(native, recorder, name: "native", width: 320, height: 240, fps: 15)

            // Everyone sees the other two streams.
            #expect(recorder.wait(20) { $0.contains("streamCreated \(firstStream)") && $0.contains("streamCreated \(secondStream)") })
            for (client, others) in [(first, [secondStream, nativeStream]), (second, [firstStream, nativeStream])] {
                try client.wait(20, what: "the other two streams") { events in
                    Set(events.compactMap { $0.type == "streamCreated" ? $0.stream?.streamId : nil }).isSuperset(of: others)
                }
            }

            // Everyone subscribes to the other two and decodes their video.
            for (client, others) in [(first, [secondStream, nativeStream]), (second, [firstStream, nativeStream])] {
                for streamId in others { _ = try #require(try? client.subscribe(streamId).get(), "subscribe to \(streamId)") }
            }
            var renders: [String: CountingRender] = [:]
            for streamId in [firstStream, secondStream] {
                let stream = try #require(native.streams[streamId])
                let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
                let render = CountingRender()
                subscriber.videoRender = render
                try native.subscribe(subscriber)
                renders[streamId] = render
            }
            for (client, others) in [(first, [secondStream, nativeStream]), (second, [firstStream, nativeStream])] {
                for streamId in others {
                    var last = "none"
                    let decoding = try eventually {
                        let video = try client.mediaStats(streamId).first("inbound-rtp", "video")
                        last = BrowserClient.receiveLine(video)
                        return (video?.framesDecoded ?? 0) >= 30
                    }
                    #expect(decoding, "a browser decodes \(streamId): \(last)")
                }
            }
            for (streamId, render) in renders {
                #expect(eventually { render.frames >= 30 }, "the native client decodes \(streamId): \(render.frames) frames")
            }
        }
    }

    /// (d) A native moderator force-mutes a browser's stream: the page gets `muteForced`,
    /// and from then on the router forwards none of the stream's audio (its forwarding
    /// counters count the browser's packets as dropped for the mute; a native subscriber
    /// receives no audio packet), while video still flows.
    @Test func aForceMutedBrowserStreamHasNoAudioForwarded() throws {
        try BrowserRig.run(kit, fps: 15) { rig in
            let (router, media, sessionId) = (rig.router, rig.media, rig.sessionId)
            let client = try rig.tab(data: "browser")
            let streamId = try #require(try? client.publish("{resolution: '320x240', frameRate: 15}").get())
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .moderator, data: "moderator"))
            defer { native.disconnect() }
            #expect(recorder.wait { $0.contains("streamCreated \(streamId)") })
            let stream = try #require(native.streams[streamId])
            let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
            let render = CountingRender()
            subscriber.videoRender = render
            try native.subscribe(subscriber)
            #expect(recorder.wait(30) { $0.contains("subscriber connected") })
            #expect(eventually { (subscriber.counters?.audio.packets ?? 0) >= 50 }, "audio reaches the subscriber before the mute")

            try native.forceMuteStream(stream)
            try client.wait(what: "the publisher's muteForced") { $0.contains { $0.type == "publisher:muteForced" } }
            // Packets already on their way when the mute landed may still arrive: measure after.
            Thread.sleep(forTimeInterval: 0.5)
            let audio = try #require(subscriber.counters).audio.packets
            let before = try #require(media.counters(streamId: streamId))
            let frames = render.frames
            Thread.sleep(forTimeInterval: 3)
            let after = try #require(media.counters(streamId: streamId))
            let received = try #require(subscriber.counters).audio.packets - audio
            #expect(received == 0, "audio packets forwarded after the mute: \(received)")
            // The browser's audio still reaches the router (a disabled track sends silence
            // frames) and the router drops it for the mute: the counter proves the cut is there.
            #expect(after.mutedAudioDropped > before.mutedAudioDropped,
                    "the router dropped \(after.mutedAudioDropped - before.mutedAudioDropped) muted audio packets")
            #expect(render.frames >= frames + 15, "video keeps flowing: \(render.frames - frames) frames in 3 s")
        }
    }

    /// (f) On loopback a browser publisher's send-side estimate (the nominated candidate
    /// pair's `availableOutgoingBitrate`) climbs past 1.5 Mbps within 10 s of its first
    /// frame: the router's transport-wide feedback reaches Chrome's congestion control
    /// (without feedback Chrome stays at its ~300 kbps start).
    @Test func aBrowserPublishersEstimateClimbsOnTheRoutersTransportFeedback() throws {
        try BrowserRig.run(kit, fps: 15) { rig in
            let media = rig.media
            let client = try rig.tab(data: "browser")
            let streamId = try #require(try? client.publish("{resolution: '1280x720', frameRate: 15}").get())
            func estimate() throws -> Double {
                let stats = try client.mediaStats()
                let pair = stats.report.first { $0.type == "candidate-pair" && $0.nominated == true && $0.state == "succeeded" }
                return pair?.availableOutgoingBitrate ?? 0
            }
            #expect(try eventually(10) { (try client.mediaStats().first("outbound-rtp", "video")?.framesSent ?? 0) > 0 }, "the browser sends")
            var highest = 0.0
            let climbed = try eventually(10) {
                highest = max(highest, try estimate())
                return highest > 1_500_000
            }
            let feedbacks = media.counters(streamId: streamId)?.transportFeedbacksOut ?? 0
            #expect(climbed, "availableOutgoingBitrate reached \(Int(highest)) bps in 10 s; router sent \(feedbacks) transport-wide feedbacks")
            #expect(feedbacks > 0, "the router sends transport-wide feedback to the browser publisher")
            print("BrowserSessionMedia TWCC: estimate \(Int(highest)) bps, \(feedbacks) feedbacks")
        }
    }
}
