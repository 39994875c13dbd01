import Foundation
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit
@testable import OTRouter

/// otkit.js keeps the native client's side of the heartbeat agreement: it acknowledges the
/// events it handled (so the router forgets them) and its pings keep an idle connection
/// past the router's silence timeout.
@Suite(.serialized) struct BrowserHeartbeatTests {
    static let project = ProjectCredentials(apiKey: "4818", apiSecret: "0123456789abcdef0123456789abcdef01234818")
    let kit = SessionTestKit(project: Self.project)

    @Test func aBrowserAcknowledgesEventsAndStaysThroughSilence() throws {
        // Not beside the browser media tests (same lock): with their Chromium processes on
        // two cores this test took 362 s in CI, and its claim rests on 1 s pings beating
        // the silence timeout.
        try AudioDeviceTestLock.run { try acknowledgesAndStays() }
    }

    private func acknowledgesAndStays() throws {
        let router = try kit.startRouter(grace: 30, silence: 5)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let server = try ChromiumPageServer(pages: ["app.html": BrowserClient.appPage])
        defer { server.stop() }
        let browser = try ChromiumBrowser()
        defer { browser.close() }

        let recorder = DelegateRecorder()
        let native = try kit.makeSession(router, sessionId, recorder)
        try kit.connect(native, recorder, token: try kit.token(sessionId, .publisher, data: "native"))
        let client = try BrowserClient(browser, server)
        let joined = try client.join(router.baseURL, apiKey: Self.project.apiKey, sessionId: sessionId,
                                     token: try kit.token(sessionId, .publisher, data: "b"))
        let browserId = try #require(try? joined.get(), "\(joined)")
        let hub = router.service.hub
        // It said it acknowledges (eventSeq on connect): the router keeps a log for it.
        #expect(hub.perform { hub.eventLogs[browserId] } != nil)

        // A signal to a connection the native session has not heard of yet is refused (1550).
        #expect(recorder.wait { $0.contains("connectionCreated \(browserId)") })
        let target = OTConnection(connectionId: browserId, creationTime: Date(), data: nil)
        for index in 1...5 { try native.signal(type: "n", string: "\(index)", connection: target) }
        try client.wait(what: "five signals") { $0.filter { $0.type == "signal" }.count == 5 }
        // Acknowledged with the next heartbeat (1 s): the router's log for it empties.
        let deadline = Date().addingTimeInterval(10)
        while (hub.perform { hub.eventLogs[browserId]?.count } ?? -1) != 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(hub.perform { hub.eventLogs[browserId]?.count } == 0, "the browser's acknowledgements empty the router's log")

        // Idle for over twice the router's silence timeouts: pings keep it connected.
        Thread.sleep(forTimeInterval: 11)
        #expect(!recorder.calls.contains("connectionDestroyed \(browserId)"))
        #expect(hub.perform { hub.sessions[sessionId]?.connections[browserId]?.peer } != nil, "still attached to its socket")
        #expect(try client.page.evaluate("session.isConnected()", as: Bool.self))
        #expect(!(try client.events()).contains { $0.type == "sessionReconnecting" || $0.type == "sessionDisconnected" })
        native.disconnect()
    }
}
