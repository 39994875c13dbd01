import Foundation
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Issue 15's acceptance: a client implementing only the reference's names
/// (`ReferenceOnlyClient`, no OTKit-specific method) receives every callback, against
/// the embedded router. The four audio-fallback warnings need a congested network and
/// are exercised under the same names by `AudioFallbackEventTests`.
@Suite(.serialized)
struct ReferenceOnlyClientTests {
    static let project = ProjectCredentials(apiKey: "4752", apiSecret: "b1c2d3e4f5a60718293a4b5c6d7e8f9012345678")
    private let kit = SessionTestKit(project: Self.project)

    static let everyMethod: Set<String> = [
        "sessionDidConnect", "sessionDidDisconnect", "session(_:didFailWithError:)", "session(_:streamCreated:)",
        "session(_:streamDestroyed:)", "session(_:connectionCreated:)", "session(_:connectionDestroyed:)",
        "session(_:receivedSignalType:from:with:)", "session(_:archiveStartedWithId:name:)", "session(_:archiveStoppedWithId:)",
        "sessionDidBeginReconnecting", "sessionDidReconnect", "session(_:muteForced:)",
        "publisher(_:didFailWithError:)", "publisher(_:streamCreated:)", "publisher(_:streamDestroyed:)", "muteForced(_:)",
        "publisherVideoDisabled(_:reason:)", "publisherVideoEnabled(_:reason:)",
        "subscriberDidConnect(toStream:)", "subscriber(_:didFailWithError:)", "subscriberDidDisconnect(fromStream:)",
        "subscriberDidReconnect(toStream:)", "subscriberVideoDataReceived(_:)", "subscriberVideoDisabled(_:reason:)",
        "subscriberVideoEnabled(_:reason:)",
    ]

    @Test func referenceNamesReceiveEveryCallback() throws { try AudioDeviceTestLock.run { try body() } }

    private func body() throws {
        OTAudioDeviceManager.setAudioDevice(nil)
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let rest = RouterREST(router: router, project: Self.project)
        let cut = try CutPath(router)
        defer { cut.stop() }
        let client = ReferenceOnlyClient()
        var error: OTError?

        // A refused connect: session(_:didFailWithError:).
        let plain = OTSessionSettings()
        plain.routerURL = router.baseURL
        let refused = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: client, settings: plain))
        refused.apiQueue = client.queue
        let forged = ProjectCredentials(apiKey: Self.project.apiKey, apiSecret: "ffffffffffffffffffffffffffffffffffffffff")
        refused.connect(withToken: try OpenTokToken.generate(sessionID: sessionId, credentials: forged), error: &error)
        #expect(error == nil)
        #expect(client.wait { $0.contains("session(_:didFailWithError:) 1004") })

        // A, a moderator, over a path the test can cut.
        let settings = OTSessionSettings()
        settings.routerURL = cut.routerURL
        settings.heartbeatTimeout = 1.5
        settings.mediaAddressRewrite = { host, port in cut.proxies.route(host, port) }
        let sessionA = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: client, settings: settings))
        sessionA.apiQueue = client.queue
        sessionA.connect(withToken: try kit.token(sessionId, .moderator), error: &error)
        #expect(error == nil && client.wait { $0.contains("sessionDidConnect") })
        let publisherSettings = OTPublisherSettings()
        publisherSettings.audioTrack = false
        publisherSettings.cameraResolution = .low
        publisherSettings.cameraFrameRate = .rate7FPS
        let publisher = try #require(OTPublisher(delegate: client, settings: publisherSettings))
        sessionA.publish(publisher, error: &error)
        #expect(error == nil && client.wait { $0.contains { $0.hasPrefix("publisher(_:streamCreated:)") } })
        let streamA = try #require(publisher.stream?.streamId)

        // B joins and publishes an unnamed stream; A subscribes.
        let b = DelegateRecorder()
        let sessionB = try kit.makeSession(router, sessionId, b)
        try kit.connect(sessionB, b, token: try kit.token(sessionId, .publisher))
        let idB = try #require(sessionB.connection?.connectionId)
        let (publisherB, streamB) = try kit.publishPattern(sessionB, b, width: 160, height: 120, fps: 15)
        #expect(client.wait { $0.contains("session(_:streamCreated:) \(streamB)") && $0.contains("session(_:connectionCreated:) \(idB)") })
        let seen = try #require(sessionA.streams[streamB])
        #expect(seen.name == nil, "an unnamed stream's name is nil, not \"\"")
        let subscriber = try #require(OTSubscriber(stream: seen, delegate: client))
        sessionA.subscribe(subscriber, error: &error)
        #expect(error == nil && client.wait { $0.contains("subscriberDidConnect(toStream:)") && $0.contains("subscriberVideoDataReceived(_:)") })
        subscriber.subscribeToVideo = false
        #expect(client.wait { $0.contains("subscriberVideoDisabled(_:reason:) 2") })
        subscriber.subscribeToVideo = true
        #expect(client.wait { $0.contains("subscriberVideoEnabled(_:reason:) 2") })
        publisher.publishVideo = false
        #expect(client.wait { $0.contains("publisherVideoDisabled(_:reason:) 1") })
        publisher.publishVideo = true
        #expect(client.wait { $0.contains("publisherVideoEnabled(_:reason:) 1") })

        // A signal, an unnamed archive (its name arrives nil), a mute of everyone and its end.
        try sessionB.signal(type: "hi", string: "there")
        #expect(client.wait { $0.contains("session(_:receivedSignalType:from:with:) hi there") })
        let archive = try rest.post("archive", ["sessionId": sessionId])
        let archiveId = try #require(archive.body["id"] as? String, "\(archive)")
        #expect(client.wait { $0.contains("session(_:archiveStartedWithId:name:) nil") }, "\(client.calls)")
        #expect(try rest.post("archive/\(archiveId)/stop").status == 200)
        #expect(client.wait { $0.contains("session(_:archiveStoppedWithId:)") })
        sessionA.forceMuteAll(nil, error: &error)
        #expect(error == nil && client.wait { $0.contains("session(_:muteForced:) true") && $0.contains("muteForced(_:)") })
        sessionA.disableForceMute(&error)
        #expect(error == nil && client.wait { $0.contains("session(_:muteForced:) false") })

        // A's path is cut, then restored: reconnecting and reconnected, for the session and the subscriber.
        cut.setCut(true)
        #expect(client.wait { $0.contains("sessionDidBeginReconnecting") && $0.contains("subscriberDidDisconnect(fromStream:)") })
        cut.setCut(false)
        #expect(client.wait(30) { $0.contains("sessionDidReconnect") && $0.contains("subscriberDidReconnect(toStream:)") }, "\(client.calls)")

        // The rest of the session reference's call shapes: a report, a mute of one stream.
        var issueId: String?
        sessionA.reportIssue(&issueId)
        #expect(issueId?.isEmpty == false)
        sessionA.forceMuteStream(seen, error: &error)
        #expect(error == nil && b.wait { $0.contains("publisher muteForced") })

        // B leaves: its stream, then (forced out by the moderator) its connection.
        try sessionB.unpublish(publisherB)
        #expect(client.wait { $0.contains("session(_:streamDestroyed:) \(streamB)") })
        sessionA.forceDisconnect(seen.connection, error: &error)
        #expect(error == nil && b.wait { $0.last == "didDisconnect" })
        #expect(client.wait { $0.contains("session(_:connectionDestroyed:) \(idB)") })
        // A leaves as the guides say.
        sessionA.unpublish(publisher, error: &error)
        #expect(error == nil && client.wait { $0.contains("publisher(_:streamDestroyed:) \(streamA)") })
        sessionA.disconnect(&error)
        #expect(error == nil && client.wait { $0.last == "sessionDidDisconnect" })
        #expect(client.calls.filter { $0.hasPrefix("session(_:didFailWithError:)") } == ["session(_:didFailWithError:) 1004"],
                "only the refused connect failed a session: \(client.calls)")

        // The asynchronous failures, on a session whose media addresses are unusable.
        let failing = ReferenceOnlyClient()
        let broken = OTSessionSettings()
        broken.routerURL = router.baseURL
        broken.mediaAddressRewrite = { _, _ in ("not-an-address", 1) }
        let sessionC = try #require(OTSession(apiKey: Self.project.apiKey, sessionId: sessionId, delegate: failing, settings: broken))
        sessionC.apiQueue = failing.queue
        sessionC.connect(withToken: try kit.token(sessionId, .publisher), error: &error)
        #expect(failing.wait { $0.contains("sessionDidConnect") })
        let doomed = try #require(OTPublisher(delegate: failing, settings: publisherSettings))
        sessionC.publish(doomed, error: &error)
        #expect(error == nil && failing.wait { $0.contains("publisher(_:didFailWithError:) 1610") }, "\(failing.calls)")
        // A stream the client believes in and the router does not know: the router refuses.
        let ghost = OTStream(streamId: "ghost", connection: OTConnection(connectionId: "nobody", creationTime: Date(), data: nil),
                             session: sessionC, creationTime: Date(), name: nil, hasAudio: true, hasVideo: true,
                             videoDimensions: OTVideoDimensions(width: 1, height: 1), videoType: .camera)
        sessionC.lock.withLock { sessionC.state.streams["ghost"] = ghost }
        sessionC.subscribe(try #require(OTSubscriber(stream: ghost, delegate: failing)), error: &error)
        #expect(error == nil && failing.wait { $0.contains { $0.hasPrefix("subscriber(_:didFailWithError:)") } }, "\(failing.calls)")
        #expect(failing.errors.last?.domain == .subscriber)
        sessionC.disconnect()
        #expect(failing.wait { $0.last == "sessionDidDisconnect" })

        let missing = Self.everyMethod.subtracting(client.methodsCalled.union(failing.methodsCalled))
        #expect(missing.isEmpty, "never called: \(missing.sorted())")
    }
}
