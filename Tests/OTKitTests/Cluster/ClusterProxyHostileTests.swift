import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Synchronization
import Testing
@testable import OTKit

/// What a hostile client can do to a node of a cluster: forge the mark nodes put on what
/// they forward (refused and counted, never served as a peer's), or flood the owner
/// through a proxy (only that client is closed).
@Suite(.serialized) struct ClusterProxyHostileTests {
    static let project = ProjectCredentials(apiKey: "7721", apiSecret: "hostile-secret-0123456789abcdef0123456789")

    @Test func forgedForwardingMarksAreRefusedAndCounted() throws {
        let trio = try ClusterTrioRouters(project: Self.project)
        let sessionId = try trio.routers[0].createSession(apiKey: Self.project.apiKey)
        let now = Int64(Date().timeIntervalSince1970)
        // A socket claiming to come from node-1 for a client at 10.9.9.9, signed with a guess.
        let closed = Mutex<String??>(nil)
        let socket = try WebSocketClient(url: trio.routers[1].signalingURL(sessionId: sessionId)
                                             + "?otkitVia=node-0&otkitClient=10.9.9.9:1&otkitTime=\(now)&otkitAuth=\(String(repeating: "ab", count: 32))",
                                         onOpen: {}, onText: { _ in }, onClose: { failure in closed.withLock { $0 = .some(failure) } })
        defer { socket.close() }
        #expect(untilTrue(20) { closed.withLock { $0 } != nil })
        // A REST call carrying a forged mark: 403, not served, not forwarded.
        let rest = try trio.rest("GET", on: 2, "/v2/project/\(Self.project.apiKey)/session/\(sessionId)/stream",
                                 headers: ["x-otkit-forwarded": "node-0;\(now);\(String(repeating: "00", count: 32))"])
        #expect(rest.status == 403, "\(rest)")
        #expect(trio.routers[1].service.forwardingStatistics?.forgedMarks == 1)
        #expect(trio.routers[2].service.forwardingStatistics?.forgedMarks == 1)
        #expect(trio.routers[0].metrics.connections == 0 && trio.routers[1].metrics.connections == 0)
        // The same call without a mark is forwarded to the owner and answered by it.
        let forwarded = try trio.rest("GET", on: 2, "/v2/project/\(Self.project.apiKey)/session/\(sessionId)/stream")
        #expect(forwarded.status == 200, "\(forwarded)")
        #expect(trio.routers[2].service.forwardingStatistics?.restForwarded == 1)
    }

    @Test func aFloodingProxiedClientIsClosedAlone() throws {
        let trio = try ClusterTrioRouters(project: Self.project, proxyQueueMessages: 8)
        let sessionId = try trio.routers[0].createSession(apiKey: Self.project.apiKey)
        let kit = trio.kit
        // A well-behaved client on node 1 (proxied) and another watching from node 0.
        let calm = DelegateRecorder(), watcher = DelegateRecorder()
        let calmSession = try trio.session(on: 1, sessionId, calm)
        try kit.connect(calmSession, calm, token: try kit.token(sessionId, .publisher))
        let watcherSession = try trio.session(on: 0, sessionId, watcher)
        try kit.connect(watcherSession, watcher, token: try kit.token(sessionId, .publisher))

        // The flooder: its own socket on node 1, connected, then 2,000 signals at once.
        let connected = Mutex(false), closed = Mutex(false)
        let flooder = try WebSocketClient(url: trio.routers[1].signalingURL(sessionId: sessionId), onOpen: {}, onText: { text in
            if text.contains("\"connected\"") { connected.withLock { $0 = true } }
        }, onClose: { _ in closed.withLock { $0 = true } })
        defer { flooder.close() }
        let token = try kit.token(sessionId, .publisher)
        flooder.send(SignalingCodec.encode(.connect(ConnectRequest(apiKey: Self.project.apiKey, token: token)), requestId: 1))
        #expect(untilTrue(20) { connected.withLock { $0 } })
        let signal = SignalingCodec.encode(.signal(SignalRequest(type: "flood", data: String(repeating: "x", count: 4000), to: nil)), requestId: 2)
        for _ in 0..<2000 { flooder.send(signal) }
        #expect(untilTrue(30) { closed.withLock { $0 } })
        #expect((trio.routers[1].service.forwardingStatistics?.proxyOverflows ?? 0) >= 1)

        // The calm client on the same node still signals and is heard.
        try calmSession.signal(type: "calm", string: "still-here")
        #expect(watcher.wait(20) { $0.contains { $0.hasPrefix("signal calm from ") && $0.hasSuffix(": still-here") } })
        #expect(calmSession.sessionConnectionStatus == .connected)
        calmSession.disconnect()
        watcherSession.disconnect()
        #expect(calm.wait { $0.last == "didDisconnect" })
    }
}
