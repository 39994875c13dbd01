import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// otkit.js's media controls against a native OTKit client on the embedded router: a
/// browser publisher's publishAudio/publishVideo (the others see hasAudio/hasVideo change),
/// a moderator's force mute (the publisher's muteForced, its track off), unpublish; a
/// browser subscriber's element, subscribeToVideo(false/true), unsubscribe, and its end
/// with the stream. A machine without Chromium fails.
@Suite(.serialized) struct BrowserMediaControlTests {
    static let project = ProjectCredentials(apiKey: "4819", apiSecret: "0123456789abcdef0123456789abcdef01234819")
    let kit = SessionTestKit(project: Self.project)

    /// A rig with one joined tab.
    func withBrowser(_ body: (Router, String, BrowserClient) throws -> Void) throws {
        try BrowserRig.run(kit) { rig in try body(rig.router, rig.sessionId, try rig.tab(data: "browser")) }
    }

    /// Waits up to `seconds` for `condition`; false when it never held.
    func eventually(_ seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
        try BrowserRig.eventually(seconds, condition)
    }

    @Test func aBrowserPublishersTogglesForceMuteAndUnpublishReachANativeClient() throws {
        try withBrowser { router, sessionId, client in
            let streamId = try #require(try? client.publish("{name: 'cam'}").get())
            let events = try client.wait(what: "the publisher's streamCreated") { $0.contains { $0.type == "publisher:streamCreated" } }
            #expect(events.contains { $0.type == "publisher:accessAllowed" })
            #expect(events.contains { $0.type == "publisher:videoElementCreated" })
            #expect(try client.page.evaluate("document.querySelectorAll('#publisher video.OT_publisher').length", as: Int.self) == 1)
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .moderator, data: "moderator"))
            defer { native.disconnect() }
            #expect(recorder.wait { $0.contains("streamCreated \(streamId)") })
            let stream = try #require(native.streams[streamId])
            #expect(stream.hasAudio && stream.hasVideo)

            // publishAudio / publishVideo: the track is turned off and the others learn it.
            try client.page.run("publisher.publishAudio(false); publisher.publishVideo(false)")
            #expect(eventually { native.streams[streamId]?.hasAudio == false && native.streams[streamId]?.hasVideo == false })
            #expect(try client.page.evaluate("publisher.getMediaStream().getTracks().every((t) => !t.enabled)", as: Bool.self))
            try client.page.run("publisher.publishAudio(true); publisher.publishVideo(true)")
            #expect(eventually { native.streams[streamId]?.hasAudio == true && native.streams[streamId]?.hasVideo == true })
            #expect(try client.page.evaluate("publisher.getMediaStream().getTracks().every((t) => t.enabled)", as: Bool.self))

            // A moderator mutes the browser's stream: muteForced on the publisher, its microphone off.
            try native.forceMuteStream(try #require(native.streams[streamId]))
            try client.wait(what: "the publisher's muteForced") { $0.contains { $0.type == "publisher:muteForced" } }
            #expect(try client.page.evaluate("publisher.getMediaStream().getAudioTracks()[0].enabled", as: Bool.self) == false)

            // Unpublish: the native client sees the stream go; the publisher is destroyed (preview gone).
            try client.page.run("session.unpublish(publisher)")
            #expect(recorder.wait { $0.contains("streamDestroyed \(streamId)") })
            let after = try client.wait(what: "the publisher's destroyed") { $0.contains { $0.type == "publisher:destroyed" } }
            #expect(after.first { $0.type == "publisher:streamDestroyed" }?.reason == "unpublished")
            #expect(try client.page.evaluate("document.querySelectorAll('#publisher video').length", as: Int.self) == 0)
            #expect(try client.page.evaluate("publisher.getMediaStream().getTracks().every((t) => t.readyState === 'ended')", as: Bool.self))
        }
    }

    @Test func aBrowserSubscriberPlaysStopsAndResumesVideoAndEndsWithItsStream() throws {
        try withBrowser { router, sessionId, client in
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            defer { native.disconnect() }
            let (publisher, streamId) = try kit.publishPattern(native, recorder, name: "pattern", width: 320, height: 240, fps: 30)
            try client.wait(30, what: "the native stream") { $0.contains { $0.type == "streamCreated" && $0.stream?.streamId == streamId } }
            _ = try #require(try? client.subscribe(streamId).get())
            let subscriber = "window.subscribers[\(client.js(streamId))]"
            func decoded() throws -> Int { try client.mediaStats(streamId).first("inbound-rtp", "video")?.framesDecoded ?? 0 }

            // The <video> in the target element plays the stream.
            let box = "document.getElementById(\(client.js("subscriber-" + streamId)))"
            try client.page.waitFor("(() => { const v = \(box).querySelector('video.OT_subscriber'); return v && v.videoWidth === 320 })()",
                                    timeout: 20, what: "the subscriber's <video> to play 320 px wide")
            try client.wait(what: "the subscriber's events") { $0.contains { $0.type == "subscriber:connected" } }

            // subscribeToVideo(false): the router stops forwarding video; (true): it comes back.
            try client.page.run("\(subscriber).subscribeToVideo(false)")
            Thread.sleep(forTimeInterval: 1)
            let stopped = try decoded()
            Thread.sleep(forTimeInterval: 2)
            #expect(try decoded() - stopped <= 3, "video kept coming after subscribeToVideo(false)")
            try client.page.run("\(subscriber).subscribeToVideo(true)")
            #expect(try eventually { try decoded() >= stopped + 30 }, "video did not come back after subscribeToVideo(true)")

            // Unsubscribe: the element goes, the subscriber is destroyed.
            try client.page.run("session.unsubscribe(\(subscriber))")
            try client.wait(what: "the subscriber's destroyed") { $0.contains { $0.type == "subscriber:destroyed" } }
            #expect(try client.page.evaluate("\(box).querySelectorAll('video').length", as: Int.self) == 0)

            // Subscribed again, then the stream ends: the subscriber ends with it.
            _ = try #require(try? client.subscribe(streamId).get())
            try native.unpublish(publisher)
            let events = try client.wait(what: "the second subscriber's destroyed") { $0.filter { $0.type == "subscriber:destroyed" }.count == 2 }
            #expect(events.contains { $0.type == "streamDestroyed" && $0.stream?.streamId == streamId })
        }
    }

    /// The router's `mediaFailed` (it ended a leg whose DTLS never finished) ends that
    /// subscriber with an exception 1600, and the named stream's publisher with 1610 and
    /// `streamDestroyed` (`networkDisconnected`), as when ICE fails on the page. The event
    /// is fed to the session's event handler: making Chromium's own DTLS fail on purpose
    /// is not in reach of the page; the router side is `EdgeLegEndingTests`.
    @Test func theRoutersMediaFailedEndsThatSubscriberOrPublisher() throws {
        try withBrowser { router, sessionId, client in
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(router, sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
            defer { native.disconnect() }
            let (_, nativeStream) = try kit.publishPattern(native, recorder, name: "pattern", width: 320, height: 240, fps: 15)
            try client.wait(30, what: "the native stream") { $0.contains { $0.type == "streamCreated" && $0.stream?.streamId == nativeStream } }
            _ = try #require(try? client.subscribe(nativeStream).get())
            let subscriber = "window.subscribers[\(client.js(nativeStream))]"
            let subscriberId = try client.page.evaluate("\(subscriber)._subscriberId", as: String.self)
            try client.page.run("session._event('mediaFailed', {streamId: \(client.js(nativeStream)), subscriberId: \(client.js(subscriberId)), message: 'handshake timed out'})")
            try client.wait(what: "the subscriber's end") { $0.contains { $0.type == "subscriber:destroyed" } }
            #expect(try client.events().contains { $0.type == "exception" && $0.data?.hasPrefix("1600 ") == true })

            let ownStream = try #require(try? client.publish("{name: 'cam'}").get())
            try client.page.run("session._event('mediaFailed', {streamId: \(client.js(ownStream)), message: 'handshake failed'})")
            let events = try client.wait(what: "the publisher's streamDestroyed") { $0.contains { $0.type == "publisher:streamDestroyed" } }
            #expect(events.contains { $0.type == "exception" && $0.data?.hasPrefix("1610 ") == true })
            #expect(events.first { $0.type == "publisher:streamDestroyed" }?.reason == "networkDisconnected")
        }
    }
}
