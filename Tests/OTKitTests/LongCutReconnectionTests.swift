import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Issue 4's reconnection acceptance, literally: "a 60 s cut ends in sessionDidDisconnect
/// and streamDestroyed for the others", with the router's default grace (30 s) and
/// silence timeout (5 s) and the client's default settings (3 s heartbeat timeout).
///
/// A's signaling goes through a TCPRelay and its media through ImpairmentProxies
/// (mediaAddressRewrite); both are black-holed for up to 60 s. A must report
/// didBeginReconnecting, then didFail 1022 and didDisconnect, and B must see A's stream
/// then A's connection destroyed, all before the 60 s are over. The test stops waiting
/// (and lifts the cut) as soon as those arrived, so it costs about 35 s (5 s silence +
/// 30 s grace on the router), not 60.
@Suite(.serialized)
struct LongCutReconnectionTests {
    static let project = ProjectCredentials(apiKey: "4713", apiSecret: "00112233445566778899aabbccddeeff00112233")
    static let cutSeconds: Double = 60

    @Test func sixtySecondCutEndsInDisconnectAndStreamDestroyed() throws { try AudioDeviceTestLock.run { try body() } }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        var configuration = RouterConfiguration()  // default reconnectGraceSeconds (30) and silence timeout (5)
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        #expect(configuration.reconnectGraceSeconds == 30)
        let router = try Router(configuration: configuration)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let relay = try TCPRelay(target: "127.0.0.1:\(router.port)")
        defer { relay.stop() }
        let proxies = MediaProxies()
        defer { proxies.stop() }

        func makeSession(_ recorder: DelegateRecorder, via url: String, media: MediaProxies? = nil) throws -> OTSession {
            var settings = OTSessionSettings()  // defaults: 1 s heartbeat, 3 s timeout
            settings.routerURL = url
            if let media { settings.mediaAddressRewrite = { host, port in media.route(host, port) } }
            let session = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: recorder, settings: settings))
            session.apiQueue = recorder.queue
            return session
        }

        let a = DelegateRecorder()
        let sessionA = try makeSession(a, via: "http://127.0.0.1:\(relay.port)", media: proxies)
        try sessionA.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: Self.project, role: .publisher))
        #expect(a.wait { $0.contains("didConnect") })
        let idA = try #require(sessionA.connection?.connectionId)
        let capturer = TestPatternCapturer(width: 160, height: 120, fps: 15)
        let publisherSettings = OTPublisherKitSettings()
        publisherSettings.videoCapture = capturer
        let publisher = OTPublisherKit(delegate: a, settings: publisherSettings)
        try sessionA.publish(publisher)
        #expect(a.wait { $0.contains { $0.hasPrefix("publisher streamCreated") } })
        let streamId = try #require(publisher.stream?.streamId)
        #expect(proxies.count == 1, "A's media leg goes through a proxy")

        let b = DelegateRecorder()
        let sessionB = try makeSession(b, via: router.baseURL)
        try sessionB.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: Self.project, role: .subscriber))
        #expect(b.wait { $0.contains("streamCreated \(streamId)") })
        let idB = try #require(sessionB.connection?.connectionId)
        #expect(a.wait { $0.contains("connectionCreated \(idB)") })

        // The cut: nothing in either direction on A's signaling or media path.
        relay.setBlackhole(true)
        proxies.setBlackhole(true)
        let cutEnds = Date().addingTimeInterval(Self.cutSeconds)
        func remaining() -> Double { max(0, cutEnds.timeIntervalSinceNow) }
        defer {
            relay.setBlackhole(false)
            proxies.setBlackhole(false)
        }

        #expect(a.wait(remaining()) { $0.contains("didBeginReconnecting") }, "\(a.calls)")
        #expect(a.wait(remaining()) { $0.last == "didDisconnect" }, "A gave up within the cut: \(a.calls)")
        #expect(b.wait(remaining()) { $0.contains("connectionDestroyed \(idA)") }, "B saw A leave within the cut: \(b.calls)")
        #expect(Date() < cutEnds, "everything arrived while the path was still cut")

        #expect(a.calls == ["didConnect", "publisher streamCreated \(streamId)", "connectionCreated \(idB)", "didBeginReconnecting",
                            "didFail 1022", "publisher streamDestroyed \(streamId)", "didDisconnect"])
        #expect(a.lastErrors.map(\.code) == [1022])
        #expect(sessionA.sessionConnectionStatus == .notConnected)
        #expect(b.calls == ["didConnect", "connectionCreated \(idA)", "streamCreated \(streamId)",
                            "streamDestroyed \(streamId)", "connectionDestroyed \(idA)"])
        #expect(sessionB.streams[streamId] == nil)

        sessionB.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
    }
}
