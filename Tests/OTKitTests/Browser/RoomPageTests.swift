import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 16 build point 7: the room page the router serves at `/room/{sessionId}`, in real
/// headless Chromium (fake camera and microphone) against the embedded router, with an
/// OTKit client in the same session. The page is driven only as a person would (its
/// buttons and chat form) and read through its DOM and `window.room`.
@Suite(.serialized) struct RoomPageTests {
    static let project = ProjectCredentials(apiKey: "4831", apiSecret: "0123456789abcdef0123456789abcdef01234831")
    let kit = SessionTestKit(project: Self.project)

    /// The page with a token in its address publishes (a native subscriber decodes its
    /// frames), shows the native publisher's stream in a tile that decodes (framesDecoded
    /// rising, the video element sized), carries chat both ways as `chat` signals, counts
    /// the connections, mutes its audio and video with its buttons (the native side sees
    /// hasAudio=false, hasVideo=false) and drops the tile when the native stream ends.
    @Test func theRoomPageWithATokenPublishesSubscribesChatsAndMutes() throws {
        try BrowserRig.run(kit, fps: 30) { rig in
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(rig.router, rig.sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(rig.sessionId, .publisher, data: "native"))
            defer { native.disconnect() }
            let (publisher, nativeStreamId) = try kit.publishPattern(native, recorder, name: "pattern", width: 320, height: 240, fps: 30)

            let token = try kit.token(rig.sessionId, .publisher, data: "room page")
            let room = try RoomPage(rig.browser, rig.router, rig.sessionId, query: "?token=\(RoomPage.encoded(token))&name=room%20cam")
            defer { room.close() }
            let pageStreamId = try room.publishedStreamId()
            let pageConnection = try room.connectionId()

            // The page's stream, decoded natively.
            #expect(recorder.wait(30) { $0.contains("streamCreated \(pageStreamId)") })
            let stream = try #require(native.streams[pageStreamId])
            #expect(stream.name == "room cam" && stream.connection.data == "room page" && stream.hasAudio)
            let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
            let render = CountingRender()
            subscriber.videoRender = render
            try native.subscribe(subscriber)
            #expect(BrowserRig.eventually(45) { render.frames >= 30 }, "frames decoded from the page: \(render.frames)")
            #expect(render.lastSize.width > 0)

            // The native stream in a tile of its own, decoding.
            try room.page.waitFor("""
                (() => { const v = document.querySelector('figure[data-stream-id="\(nativeStreamId)"] video');
                  return v && v.videoWidth > 0; })()
                """, timeout: 45, what: "the native stream's tile to show video")
            let first = try room.framesDecoded(nativeStreamId)
            #expect(BrowserRig.eventually(30) { (try? room.framesDecoded(nativeStreamId)) ?? 0 >= first + 30 },
                    "framesDecoded in the page's tile: \(first) then \((try? room.framesDecoded(nativeStreamId)) ?? -1)")
            #expect(try room.page.evaluate("document.querySelector('figure[data-stream-id=\"\(nativeStreamId)\"] .name').textContent",
                                           as: String.self) == "pattern")
            try room.page.waitFor("document.getElementById('connection-count').textContent === '2 connected'",
                                  what: "the connection count to say 2")

            // Chat: typed in the page, to the native client; from the native client, shown in the page.
            try room.page.run("""
                document.getElementById('chat-input').value = 'hello from the page';
                document.getElementById('chat-form').requestSubmit();
                """)
            #expect(recorder.wait(20) { $0.contains("signal chat from \(pageConnection): hello from the page") },
                    "the native client's signals: \(recorder.calls.filter { $0.hasPrefix("signal") })")
            try native.signal(type: "chat", string: "hello from native")
            try room.page.waitFor("""
                room.messages.some((m) => m.data === 'hello from native' && !m.mine && m.from === 'native')
                  && document.getElementById('messages').textContent.includes('hello from native')
                """, what: "the native chat line in the page")
            #expect(try room.page.evaluate("room.messages.some((m) => m.data === 'hello from the page' && m.mine)", as: Bool.self),
                    "the page's own line comes back to it, marked as its own")

            // The mute button: the native side sees hasAudio=false (and true again after a second click).
            try room.page.run("document.getElementById('mute-audio').click()")
            #expect(BrowserRig.eventually(20) { native.streams[pageStreamId]?.hasAudio == false },
                    "hasAudio after the page's mute button: \(String(describing: native.streams[pageStreamId]?.hasAudio))")
            #expect(try room.page.evaluate("document.getElementById('mute-audio').getAttribute('aria-pressed')", as: String.self) == "true")
            try room.page.run("document.getElementById('mute-audio').click()")
            #expect(BrowserRig.eventually(20) { native.streams[pageStreamId]?.hasAudio == true })
            try room.page.run("document.getElementById('mute-video').click()")
            #expect(BrowserRig.eventually(20) { native.streams[pageStreamId]?.hasVideo == false },
                    "hasVideo after the page's video button: \(String(describing: native.streams[pageStreamId]?.hasVideo))")
            #expect(try room.page.evaluate("document.getElementById('mute-video').textContent", as: String.self) == "Start video")

            // The native stream ends: its tile goes.
            try native.unpublish(publisher)
            try room.page.waitFor("!document.querySelector('figure[data-stream-id=\"\(nativeStreamId)\"]')",
                                  what: "the ended stream's tile to go")
            let exceptions = room.page.consoleMessages.filter { $0.hasPrefix("exception") }
            #expect(exceptions.isEmpty, "\(exceptions)")
            #expect(try room.shownError() == nil, "the page showed an error: \(String(describing: try? room.shownError()))")
        }
    }

    /// On a loopback router (dev tokens on by default) the page without a token gets one
    /// from `POST /room/{id}/token`, connects and publishes: the native client sees its
    /// connection with the page's `?name=` as data.
    @Test func aDevTokenOnLoopbackLetsThePageJoinWithoutAToken() throws {
        try BrowserRig.run(kit, fps: 15) { rig in
            #expect(rig.router.service.configuration.devTokensEnabled)
            let recorder = DelegateRecorder()
            let native = try kit.makeSession(rig.router, rig.sessionId, recorder)
            try kit.connect(native, recorder, token: try kit.token(rig.sessionId, .subscriber, data: "native"))
            defer { native.disconnect() }
            let room = try RoomPage(rig.browser, rig.router, rig.sessionId, query: "?name=dev%20page")
            defer { room.close() }
            let streamId = try room.publishedStreamId()
            #expect(recorder.wait(30) { $0.contains("streamCreated \(streamId)") })
            #expect(native.streams[streamId]?.connection.data == "dev page")
            #expect(try room.shownError() == nil)
        }
    }

    /// With dev tokens off the page without a token shows 1004 and the router's reason
    /// (the endpoint answered 403, counted), and nothing in the page threw.
    @Test func withDevTokensOffThePageWithoutATokenShows1004() throws {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        configuration.devTokens = false
        let router = try Router(configuration: configuration)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let browser = try ChromiumBrowser()
        defer { browser.close() }
        let refusedBefore = router.metrics.restRequests[403] ?? 0
        let room = try RoomPage(browser, router, sessionId)
        defer { room.close() }
        try room.page.waitFor("window.room && room.error", what: "the page to show an error")
        let shown = try #require(try room.shownError())
        #expect(shown.code == 1004 && shown.name == "OT_AUTHENTICATION_ERROR" && shown.visible, "\(shown)")
        #expect(shown.message.contains("dev tokens are off"), "\(shown.message)")
        #expect(shown.text.contains("1004"))
        #expect(router.metrics.restRequests[403] ?? 0 == refusedBefore + 1, "the refused dev-token request is counted")
        #expect(try room.page.evaluate("room.session === null", as: Bool.self), "no session was started without a token")
        #expect(room.page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(room.page.consoleMessages)")
    }

    /// A bad token in the address: the page shows the router's 1004 with its message, does
    /// not publish, and keeps running (no uncaught exception, the page still answers).
    /// A session id the router cannot parse: the page shows an OpenTok error code too.
    @Test func aBadTokenInTheAddressShows1004AndThePageKeepsRunning() throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let browser = try ChromiumBrowser()
        defer { browser.close() }
        let otherProject = ProjectCredentials(apiKey: Self.project.apiKey, apiSecret: "ffffffffffffffffffffffffffffffffffff4831")
        let forged = try OpenTokToken.generate(sessionID: sessionId, credentials: otherProject, connectionData: "forged")
        let room = try RoomPage(browser, router, sessionId, query: "?token=\(RoomPage.encoded(forged))")
        defer { room.close() }
        try room.page.waitFor("window.room && room.error", what: "the page to show an error")
        let shown = try #require(try room.shownError())
        #expect(shown.code == 1004 && shown.visible && shown.text.contains("1004"), "\(shown)")
        #expect(shown.message.contains("token"), "the router's reason: \(shown.message)")
        #expect(try room.page.evaluate("room.publisher === null && document.getElementById('status').textContent === 'failed'", as: Bool.self))
        #expect(try room.page.evaluate("1 + 1", as: Int.self) == 2)
        #expect(room.page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(room.page.consoleMessages)")
        #expect((router.metrics.badTokens.values.reduce(0, +)) >= 1, "the router counted the refused token")

        let garbage = try RoomPage(browser, router, "not-a-session", query: "?token=\(RoomPage.encoded(forged))")
        defer { garbage.close() }
        try garbage.page.waitFor("window.room && room.error", what: "the page to show an error for a bad session id")
        let bad = try #require(try garbage.shownError())
        #expect(bad.visible && bad.code >= 1000 && bad.text.contains(String(bad.code)), "\(bad)")
        #expect(garbage.page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(garbage.page.consoleMessages)")
    }
}
