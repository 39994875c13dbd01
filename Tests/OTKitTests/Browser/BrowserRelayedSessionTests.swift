import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 16 point 8 with real headless Chromium: in a relayed session a browser's stream
/// goes through the router (it cannot meet native peers directly), while a native relayed
/// publisher's stream still goes peer to peer between native clients. A machine without
/// Chromium fails.
@Suite(.serialized) struct BrowserRelayedSessionTests {
    static let project = ProjectCredentials(apiKey: "4836", apiSecret: "0123456789abcdef0123456789abcdef01234836")
    let kit = SessionTestKit(project: Self.project)
    /// The measured window.
    static let window = 10.0

    /// (a) in a relayed session: the browser publishes its fake camera; an OTKit subscriber
    /// gets a leg on the router's edge (the router's `subscribed` reply carries `transport`)
    /// and decodes ≥ 90 % of the frames the browser sent over 10 s. On main the browser's
    /// publish is refused (1500).
    @Test func aBrowserPublishingInARelayedSessionIsDecodedByANativeSubscriberThroughTheRouter() throws {
        try BrowserRig.run(kit, fps: 30, relayed: true) { rig in
            let client = try rig.tab(data: "browser")
            let published = try client.publish("{name: 'browser cam', resolution: '640x480', frameRate: 30}")
            let streamId = try #require(try? published.get(), "browser publish in a relayed session failed: \(published)")
            let recorder = DelegateRecorder()
            let native = try kit.joinSeeing(streamId, rig.router, rig.sessionId, recorder)
            defer { native.disconnect() }
            let stream = try #require(native.streams[streamId])
            let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
            let render = CountingRender()
            subscriber.videoRender = render
            try native.subscribe(subscriber)
            #expect(recorder.wait(30) { $0.contains("subscriber connected") })
            let pipeline = try #require(subscriber.lock.withLock { subscriber.pipeline })
            #expect(pipeline.configuration.feedbackDestination?.port == UInt16(rig.router.mediaPort ?? -1),
                    "the native subscriber's leg is on the router's edge port")
            #expect(pipeline.configuration.consent != nil, "an edge leg (ICE consent), not a relayed publisher's own socket")
            #expect(recorder.wait(30) { _ in render.frames >= 30 }, "warm-up: no decoded frames")

            let before = try client.mediaStats(), decodedBefore = render.frames
            let forwardedBefore = rig.media.counters(streamId: streamId)?.packetsOut ?? 0
            Thread.sleep(forTimeInterval: Self.window)
            let after = try client.mediaStats(), decodedAfter = render.frames
            let video = try #require(after.first("outbound-rtp", "video"))
            let sent = (video.framesSent ?? 0) - (before.first("outbound-rtp", "video")?.framesSent ?? 0)
            let decoded = decodedAfter - decodedBefore
            let forwarded = (rig.media.counters(streamId: streamId)?.packetsOut ?? 0) - forwardedBefore
            print("relayed (a): the native subscriber decoded \(decoded) of \(sent) frames the browser sent in \(Self.window) s"
                  + " (\(sent == 0 ? 0 : decoded * 100 / sent) %); the router forwarded \(forwarded) packets")
            #expect(sent >= Int(Self.window) * 10, "the browser sent \(sent) frames in \(Self.window) s: too few to judge")
            #expect(Double(decoded) >= 0.9 * Double(sent), "decoded \(decoded) of \(sent) frames the browser sent")
            #expect(forwarded >= UInt64(decoded), "the browser's media passed through the router's forwarding group")
            #expect(after.remoteCandidate?.port == rig.router.mediaPort, "\(String(describing: after.remoteCandidate))")
        }
    }

    /// In the same relayed session, an OTKit publisher (test pattern + tone) is received peer
    /// to peer by a native subscriber: its leg is the publisher's own socket, the router has
    /// no forwarding group for the stream and its forwarded totals do not grow with that
    /// media. A browser asking for that stream is refused cleanly (1604; the router does not
    /// yet receive a relayed publisher's media on a browser's behalf) and stays in the
    /// session, and the native subscriber's media goes on.
    @Test func aNativeRelayedPublisherStaysPeerToPeerAndABrowserSubscriberIsRefusedCleanly() throws {
        try BrowserRig.run(kit, fps: 30, relayed: true) { rig in
            let client = try rig.tab(data: "browser")
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(rig.router, rig.sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(rig.sessionId, .publisher, data: "native"))
            defer { native.disconnect() }
            let (publisher, streamId) = try kit.publishPattern(native, recorder, name: "pattern", width: 320, height: 240, fps: 30)
            let publisherPipeline = try #require(publisher.lock.withLock { publisher.pipeline })

            let viewer = DelegateRecorder()
            let watching = try kit.joinSeeing(streamId, rig.router, rig.sessionId, viewer)
            defer { watching.disconnect() }
            let stream = try #require(watching.streams[streamId])
            let subscriber = try #require(OTSubscriber(stream: stream, delegate: viewer))
            let render = CountingRender()
            subscriber.videoRender = render
            try watching.subscribe(subscriber)
            #expect(viewer.wait(30) { $0.contains("subscriber connected") })
            let pipeline = try #require(subscriber.lock.withLock { subscriber.pipeline })
            #expect(pipeline.configuration.feedbackDestination == SocketAddress(ipv4: "127.0.0.1", port: publisherPipeline.localAddress.port),
                    "the native subscriber talks to the publisher's own socket")
            #expect(pipeline.configuration.consent == nil, "no edge leg")
            #expect(viewer.wait(30) { _ in render.frames >= 30 }, "peer-to-peer frames decoded")

            try client.wait(30, what: "the native stream") { $0.contains { $0.type == "streamCreated" && $0.stream?.streamId == streamId } }
            let refused = try client.subscribe(streamId)
            guard case .failure(let failure) = refused else {
                Issue.record("a browser subscribed to a relayed publisher's stream: \(refused)"); return
            }
            #expect(failure.failure.code == 1604, "\(failure)")

            let framesBefore = render.frames, totalsBefore = rig.media.totals.packetsOut
            #expect(viewer.wait(30) { _ in render.frames >= framesBefore + 60 }, "the peer-to-peer media goes on")
            #expect(rig.media.counters(streamId: streamId) == nil, "the router has no forwarding group for the relayed stream")
            #expect(rig.media.totals.packetsOut == totalsBefore, "the router forwarded none of the relayed stream's packets")
            // The browser is still in the session: a signal from it reaches the native client.
            #expect(try client.signal(type: "chat", data: "still here") == nil)
            #expect(recorder.wait(15) { $0.contains { $0.contains("still here") } }, "the browser's signal after the refusal")
        }
    }
}
