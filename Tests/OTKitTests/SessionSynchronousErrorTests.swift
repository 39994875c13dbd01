import Foundation
import Testing
@testable import OTKit

/// What an unconnected session, bad arguments and settings do synchronously.
@Suite struct SessionSynchronousErrorTests {
    @Test func initializerRefusesEmptyKeyOrSession() {
        #expect(OTSession(apiKey: "", sessionId: "s", delegate: nil) == nil)
        #expect(OTSession(apiKey: "k", sessionId: "", delegate: nil) == nil)
        #expect(OTSession(apiKey: "k", sessionId: "s", delegate: nil) != nil)
    }

    @Test func freshSessionHasNothingYet() throws {
        let session = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil))
        #expect(session.sessionConnectionStatus == .notConnected)
        #expect(session.connection == nil)
        #expect(session.capabilities == nil)
        #expect(session.streams.isEmpty)
        #expect(session.apiQueue.label == DispatchQueue.main.label)
    }

    @Test func everyCallNeedsAConnection() throws {
        let session = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil))
        let connection = OTConnection(connectionId: "c", creationTime: Date(), data: nil)
        let stream = OTStream(streamId: "st", connection: connection, session: session, creationTime: Date(), name: "",
                              hasAudio: true, hasVideo: true, videoDimensions: OTVideoDimensions(width: 640, height: 480), videoType: .camera)
        let subscriber = try #require(OTSubscriberKit(stream: stream, delegate: nil))
        let calls: [(String, () throws(OTError) -> Void)] = [
            ("publish", { () throws(OTError) in try session.publish(OTPublisherKit(delegate: nil)) }),
            ("subscribe", { () throws(OTError) in try session.subscribe(subscriber) }),
            ("signal", { () throws(OTError) in try session.signal(type: "t", string: "d") }),
            ("forceMuteAll", { () throws(OTError) in try session.forceMuteAll() }),
            ("forceMuteStream", { () throws(OTError) in try session.forceMuteStream(stream) }),
            ("disableForceMute", { () throws(OTError) in try session.disableForceMute() }),
            ("forceDisconnect", { () throws(OTError) in try session.forceDisconnect(connection) }),
            ("reportIssue", { () throws(OTError) in _ = try session.reportIssue() }),
        ]
        for (name, call) in calls {
            do { try call(); Issue.record("\(name) did not throw") } catch {
                #expect(error.code == 1010, "\(name)")
                // The reference: publish errors in OTPublisherErrorCode, subscribe errors in OTSubscriberErrorCode.
                let domain: OTErrorDomain = name == "publish" ? .publisher : name == "subscribe" ? .subscriber : .session
                #expect(error.domain == domain, "\(name)")
            }
        }
    }

    /// The guides' failable initializers: nil where OTKit cannot make the object.
    @Test func failableInitializersSayNilWhenTheyCannot() throws {
        let session = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil))
        let connection = OTConnection(connectionId: "c", creationTime: Date(), data: nil)
        func stream(_ owner: OTSession?) -> OTStream {
            OTStream(streamId: "st", connection: connection, session: owner, creationTime: Date(), name: nil,
                     hasAudio: true, hasVideo: true, videoDimensions: OTVideoDimensions(width: 1, height: 1), videoType: .camera)
        }
        #expect(OTSubscriber(stream: stream(session), delegate: nil) != nil)
        #expect(OTSubscriber(stream: stream(nil), delegate: nil) == nil, "a stream whose session is gone")
        let missing = OTPublisherSettings()
        missing.cameraDevicePath = "/dev/otkit-no-such-camera"
        #expect(OTPublisher(delegate: nil, settings: missing) == nil, "a named camera that is not there")
        #expect(OTPublisher(delegate: nil, settings: OTPublisherSettings()) != nil)
    }

    @Test func unpublishAndUnsubscribeOfStrangersSayNotFound() throws {
        let session = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil))
        let connection = OTConnection(connectionId: "c", creationTime: Date(), data: nil)
        let stream = OTStream(streamId: "st", connection: connection, session: session, creationTime: Date(), name: "",
                              hasAudio: true, hasVideo: true, videoDimensions: OTVideoDimensions(width: 1, height: 1), videoType: .camera)
        do { try session.unpublish(OTPublisherKit(delegate: nil)); Issue.record("no throw") } catch {
            #expect(error.code == 1113 && error.domain == .publisher)
        }
        let stranger = try #require(OTSubscriberKit(stream: stream, delegate: nil))
        do { try session.unsubscribe(stranger); Issue.record("no throw") } catch { #expect(error.code == 1112 && error.domain == .subscriber) }
    }

    /// `OTSessionSettings` is an object passed as optional, as in OpenTok; the session
    /// keeps its own copy, so changing the object later changes nothing.
    @Test func settingsAreAnOptionalObjectTheSessionCopies() throws {
        let defaults = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil, settings: nil))
        #expect(defaults.settings.routerURL == OTSessionSettings.defaultRouterURL)
        let settings = OTSessionSettings()
        settings.routerURL = "http://10.1.2.3:4000"
        settings.connectionEventsSuppressed = true
        let session = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil, settings: settings))
        settings.routerURL = "http://10.9.9.9:1"
        #expect(session.settings.routerURL == "http://10.1.2.3:4000")
        #expect(session.settings.connectionEventsSuppressed)
        session.settings.routerURL = "http://10.8.8.8:1"  // a copy: the session keeps its own
        #expect(session.settings.routerURL == "http://10.1.2.3:4000")
    }

    @Test func connectChecksTokenAndRouterURL() throws {
        let session = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil))
        do { try session.connect(withToken: ""); Issue.record("no throw") } catch { #expect(error.code == 1011) }
        let settings = OTSessionSettings()
        settings.routerURL = "ftp://example"
        let bad = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil, settings: settings))
        do { try bad.connect(withToken: "T1==x"); Issue.record("no throw") } catch { #expect(error.code == 1011) }
        #expect(bad.sessionConnectionStatus == .notConnected)
    }

    @Test(arguments: [
        ("http://127.0.0.1:4000", "ws://127.0.0.1:4000/v1/session/1_abc/ws"),
        ("https://10.0.0.1:443/", "wss://10.0.0.1:443/v1/session/1_abc/ws"),
        ("ws://127.0.0.1:9", "ws://127.0.0.1:9/v1/session/1_abc/ws"),
    ])
    func webSocketURLFollowsRouterURL(router: String, expected: String) {
        let settings = OTSessionSettings()
        settings.routerURL = router
        #expect(settings.webSocketURL(sessionId: "1_abc") == expected)
    }

    @Test func publisherSettingsIgnoreOutOfRangeAudioBitrate() {
        let settings = OTPublisherKitSettings()
        #expect(settings.audioBitrate == 40_000)
        settings.audioBitrate = 5_999
        #expect(settings.audioBitrate == 40_000)
        settings.audioBitrate = 510_001
        #expect(settings.audioBitrate == 40_000)
        settings.audioBitrate = 6_000
        #expect(settings.audioBitrate == 6_000)
        settings.audioBitrate = 510_000
        #expect(settings.audioBitrate == 510_000)
    }

    @Test func defaultRouterURLIsLocal() {
        if ProcessInfo.processInfo.environment["OTKIT_ROUTER_URL"] == nil {
            #expect(OTSessionSettings().routerURL == "http://127.0.0.1:4000")
        }
    }
}

/// An app written against OTKit's old subscriber names still hears the reconnection
/// callbacks: the reference names' defaults forward to them.
@Suite struct OldSubscriberNamesTests {
    final class OldNames: OTSubscriberKitDelegate, @unchecked Sendable {
        var heard: [String] = []
        func subscriberDidConnect(toStream subscriber: OTSubscriberKit) {}
        func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) {}
        func subscriberDidDisconnectFromStream(_ subscriber: OTSubscriberKit) { heard.append("disconnected") }
        func subscriberDidReconnectToStream(_ subscriber: OTSubscriberKit) { heard.append("reconnected") }
    }

    @Test func oldNamesAreForwarded() throws {
        let session = try #require(OTSession(apiKey: "k", sessionId: "s", delegate: nil))
        let stream = OTStream(streamId: "st", connection: OTConnection(connectionId: "c", creationTime: Date(), data: nil), session: session,
                              creationTime: Date(), name: nil, hasAudio: true, hasVideo: true,
                              videoDimensions: OTVideoDimensions(width: 1, height: 1), videoType: .camera)
        let app = OldNames()
        let subscriber = try #require(OTSubscriberKit(stream: stream, delegate: app))
        // What OTKit calls: the reference names, through the protocol.
        let delegate: any OTSubscriberKitDelegate = app
        delegate.subscriberDidDisconnect(fromStream: subscriber)
        delegate.subscriberDidReconnect(toStream: subscriber)
        #expect(app.heard == ["disconnected", "reconnected"])
    }
}
