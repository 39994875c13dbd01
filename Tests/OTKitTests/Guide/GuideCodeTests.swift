import Foundation
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Issue 15's acceptance: the guides' Swift (`GuideViewController`, compiled against
/// OTKit's public API unchanged) run against the embedded router, two apps in one
/// session. Its delegate methods come in the order the guides describe: connect →
/// sessionDidConnect → publish → publisher streamCreated → session streamCreated (the
/// other app's stream) → subscribe → subscriberDidConnect … unsubscribe, unpublish →
/// publisher streamDestroyed → disconnect → sessionDidDisconnect.
@Suite(.serialized)
struct GuideCodeTests {
    static let project = ProjectCredentials(apiKey: "4751", apiSecret: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678")
    private let kit = SessionTestKit(project: Self.project)

    @Test func guidesCodeRunsInTheGuidesOrder() throws { try AudioDeviceTestLock.run { try body() } }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        func app() throws -> GuideViewController {
            GuideViewController(apiKey: Self.project.apiKey, sessionId: sessionId,
                                token: try kit.token(sessionId, .publisher), routerURL: router.baseURL)
        }
        func wait(_ vc: GuideViewController, _ seconds: Double = 15, _ done: @escaping ([String]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !done(vc.calls) { Thread.sleep(forTimeInterval: 0.02) }
            return done(vc.calls)
        }

        // App A joins and publishes (it publishes from sessionDidConnect, as the guide does).
        let a = try app()
        a.doConnect()
        #expect(wait(a) { $0.contains { $0.hasPrefix("publisher streamCreated") } }, "\(a.calls)")
        let sessionA = try #require(a.session)
        let streamA = try #require(a.publisher?.stream?.streamId)
        #expect(sessionA.sessionConnectionStatus == .connected)
        #expect(a.publisher?.stream?.name == "Bob's video")

        // App B joins, publishes, and subscribes to A's stream; A subscribes to B's.
        let b = try app()
        b.doConnect()
        let sessionB = try #require({ () -> OTSession? in _ = wait(b) { $0.contains("sessionDidConnect") }; return b.session }())
        let idA = try #require(sessionA.connection?.connectionId)
        let idB = try #require(sessionB.connection?.connectionId)
        #expect(wait(b) { $0.contains("subscriberDidConnect \(streamA)") && $0.contains { $0.hasPrefix("publisher streamCreated") } }, "\(b.calls)")
        let streamB = try #require(b.publisher?.stream?.streamId)
        #expect(wait(a) { $0.contains("subscriberDidConnect \(streamB)") }, "\(a.calls)")

        // A signals everyone with the reference's call shape; both receive it.
        a.sendChat("hello")
        #expect(wait(b) { $0.contains("receivedSignalType chat hello") })
        #expect(wait(a) { $0.contains("receivedSignalType chat hello") })
        b.sendChatNoRetry("hi")  // connected: retryAfterReconnect false changes nothing
        #expect(wait(a) { $0.contains("receivedSignalType chat hi") })
        #expect(wait(b) { $0.contains("receivedSignalType chat hi") })

        // A leaves as the guides say: unsubscribe, unpublish (wait for streamDestroyed), disconnect.
        a.doUnsubscribe()
        a.doUnpublish()
        #expect(wait(a) { $0.contains("publisher streamDestroyed \(streamA)") }, "\(a.calls)")
        #expect(wait(b) { $0.contains("session streamDestroyed \(streamA)") }, "\(b.calls)")
        #expect(b.subscriber == nil, "the guide's streamDestroyed dropped B's subscriber")
        a.doDisconnect()
        #expect(wait(a) { $0.last == "sessionDidDisconnect" }, "\(a.calls)")
        #expect(wait(b) { $0.contains("connectionDestroyed \(idA)") }, "\(b.calls)")

        // A's calls, exactly and in the guides' order.
        #expect(a.calls == ["sessionDidConnect", "publisher streamCreated \(streamA)", "connectionCreated \(idB)",
                            "session streamCreated \(streamB)", "subscriberDidConnect \(streamB)",
                            "receivedSignalType chat hello", "receivedSignalType chat hi", "publisher streamDestroyed \(streamA)",
                            "sessionDidDisconnect"])
        // B: connect, the others, then its own publish and its subscription (these two race).
        let bCalls = b.calls
        #expect(Array(bCalls.prefix(3)) == ["sessionDidConnect", "connectionCreated \(idA)", "session streamCreated \(streamA)"], "\(bCalls)")
        #expect(Set(bCalls.dropFirst(3).prefix(2)) == ["publisher streamCreated \(streamB)", "subscriberDidConnect \(streamA)"], "\(bCalls)")
        #expect(Array(bCalls.dropFirst(5)) == ["receivedSignalType chat hello", "receivedSignalType chat hi", "session streamDestroyed \(streamA)", "connectionDestroyed \(idA)"],
                "\(bCalls)")
        #expect(a.printed.allSatisfy { !$0.contains("failed") }, "no synchronous error: \(a.printed)")
        #expect(b.printed.allSatisfy { !$0.contains("failed") }, "no synchronous error: \(b.printed)")
        #expect(sessionA.sessionConnectionStatus == .notConnected)

        b.doDisconnect()
        #expect(wait(b) { $0.last == "sessionDidDisconnect" })
        // The error forms report synchronous errors too: nothing to leave now.
        var error: OTError?
        b.session?.disconnect(&error)
        #expect(error?.code == 1010)
        b.session?.publish(try #require(b.publisher), error: &error)
        #expect(error?.domain == .publisher && error?.code == 1010)
    }
}
