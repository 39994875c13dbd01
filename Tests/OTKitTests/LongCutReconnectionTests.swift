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
    private let kit = SessionTestKit(project: Self.project)

    @Test func sixtySecondCutEndsInDisconnectAndStreamDestroyed() throws { try AudioDeviceTestLock.run { try body() } }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        #expect(RouterConfiguration().reconnectGraceSeconds == 30)
        let router = try kit.startRouter()  // the defaults: reconnectGraceSeconds 30, silence timeout 5
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let cut = try CutPath(router)
        defer { cut.stop() }

        // Sessions keep the client's default settings: 1 s heartbeat, 3 s timeout.
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a, via: cut)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let idA = try #require(sessionA.connection?.connectionId)
        let (_, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 15)
        #expect(cut.proxies.count == 1, "A's media leg goes through a proxy")

        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try sessionB.connect(withToken: try kit.token(sessionId, .subscriber))
        #expect(b.wait { $0.contains("streamCreated \(streamId)") })
        let idB = try #require(sessionB.connection?.connectionId)
        #expect(a.wait { $0.contains("connectionCreated \(idB)") })

        // The cut: nothing in either direction on A's signaling or media path.
        cut.setCut(true)
        let cutEnds = Date().addingTimeInterval(Self.cutSeconds)
        func remaining() -> Double { max(0, cutEnds.timeIntervalSinceNow) }
        defer { cut.setCut(false) }

        #expect(a.wait(remaining()) { $0.contains("didBeginReconnecting") }, "\(a.calls)")
        #expect(a.wait(remaining()) { $0.last == "didDisconnect" }, "A gave up within the cut: \(a.calls)")
        #expect(b.wait(remaining()) { $0.contains("connectionDestroyed \(idA)") }, "B saw A leave within the cut: \(b.calls)")
        #expect(Date() < cutEnds, "everything arrived while the path was still cut")

        #expect(a.calls == ["didConnect", "publisher streamCreated \(streamId)", "connectionCreated \(idB)", "didBeginReconnecting",
                            "didFail 1022", "publisher streamDestroyed \(streamId)", "didDisconnect"])
        #expect(a.lastErrors.map(\.code) == [1022])
        #expect(sessionA.sessionConnectionStatus == .failed, "a lost session ends failed (OTSessionConnectionStatusFailed)")
        #expect(b.calls == ["didConnect", "connectionCreated \(idA)", "streamCreated \(streamId)",
                            "streamDestroyed \(streamId)", "connectionDestroyed \(idA)"])
        #expect(sessionB.streams[streamId] == nil)

        sessionB.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
    }
}
