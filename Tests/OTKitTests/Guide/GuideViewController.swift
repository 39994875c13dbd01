import Foundation
import OTKit

/// The OpenTok iOS guides' Swift ("Joining a session", "Publishing streams",
/// "Subscribing to streams", in ../shared/seeds/), as a developer following them writes
/// it, compiled against OTKit unchanged. Deliberately not `@testable`: only the public
/// API is used. What differs from the guides, and why:
/// - UIKit layout is gone: the guides' `publisher.view` / `subscriber.view` lines are
///   here (an `OTView` on Linux, placed with `frame`), `addSubview` is not (the app's
///   toolkit takes the view; `OTView.show` opens a window, tested in OTViewWindowTests).
/// - The guides' `if error { … }` / `if (error)` is not Swift (an Optional is not a Bool)
///   in any SDK; it is written `if let error { … }` as their publishing guide does.
/// - The session gets an `OTSessionSettings` naming the embedded router, and a serial
///   `apiQueue` (iOS's default, the main queue, is not run by the test process).
/// - The camera publisher asks for `.low` at `.rate15FPS` (the guide shows `.high`,
///   `.rate30FPS`): two of them share the test machine's CPU.
/// Every delegate call is recorded as a line, in order, on `apiQueue`.
final class GuideViewController: NSObject, OTSessionDelegate, OTPublisherDelegate, OTSubscriberDelegate, @unchecked Sendable {
    let kApiKey: String
    let kSessionId: String
    let kToken: String
    let routerURL: String
    let queue = DispatchQueue(label: "guide.api")

    var session: OTSession?
    var publisher: OTPublisher?
    var subscriber: OTSubscriber?
    /// Subscribe to others' streams when they appear (the subscribing guide's flow).
    var subscribeToStreams = true

    private let lock = NSLock()
    private var lines: [String] = []
    private(set) var printed: [String] = []

    init(apiKey: String, sessionId: String, token: String, routerURL: String) {
        kApiKey = apiKey
        kSessionId = sessionId
        kToken = token
        self.routerURL = routerURL
    }

    var calls: [String] { lock.withLock { lines } }
    private func record(_ line: String) { lock.withLock { lines.append(line) } }
    private func print(_ text: String) { lock.withLock { printed.append(text) } }

    // MARK: - Joining a session

    func doConnect() {
        let settings = OTSessionSettings()
        settings.routerURL = routerURL
        session = OTSession(apiKey: kApiKey, sessionId: kSessionId, delegate: self, settings: settings)
        session?.apiQueue = queue

        var error: OTError?
        session?.connect(withToken: kToken, error: &error)
        if let error {
            print("connect failed with error: (\(error))")
        }
    }

    func doDisconnect() {
        var error: OTError?
        session?.disconnect(&error)
        if let error {
            print("disconnect failed with error: (\(error))")
        }
    }

    func sessionDidConnect(_ session: OTSession) {
        record("sessionDidConnect")
        if let capabilities = session.capabilities, capabilities.canPublish {
            doPublish()
        } else {
            // The client cannot publish.
        }
    }

    func sessionDidDisconnect(_ session: OTSession) { record("sessionDidDisconnect") }

    func session(_ session: OTSession, didFailWithError error: OTError) { record("session didFailWithError \(error.code)") }

    func sessionDidBeginReconnecting(_ session: OTSession) { record("sessionDidBeginReconnecting") }

    func sessionDidReconnect(_ session: OTSession) { record("sessionDidReconnect") }

    func session(_ session: OTSession, connectionCreated connection: OTConnection) { record("connectionCreated \(connection.connectionId)") }

    func session(_ session: OTSession, connectionDestroyed connection: OTConnection) { record("connectionDestroyed \(connection.connectionId)") }

    func session(_ session: OTSession, receivedSignalType type: String?, from connection: OTConnection?, with string: String?) {
        record("receivedSignalType \(type ?? "nil") \(string ?? "nil")")
    }

    // MARK: - Publishing streams

    func doPublish() {
        let publisherSettings = OTPublisherSettings()
        publisherSettings.name = "Bob's video"
        publisherSettings.audioTrack = false
        publisherSettings.videoTrack = true
        publisherSettings.cameraResolution = .low
        publisherSettings.cameraFrameRate = .rate15FPS
        let publisher = OTPublisher(delegate: self, settings: publisherSettings)!
        if let publisherView = publisher.view {
            publisherView.frame = CGRect(x: 0, y: 0, width: 320, height: 240)  // then: add it to the UI
        }
        self.publisher = publisher

        var error: OTError?
        session?.publish(publisher, error: &error)

        if let error = error {
            print("publishing failed with error: \(error)")
        }
    }

    func doUnpublish() {
        guard let publisher else { return }
        var error: OTError?
        session?.unpublish(publisher, error: &error)

        if let error = error {
            print("unpublishing failed with error: \(error)")
        }
    }

    func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream) { record("publisher streamCreated \(stream.streamId)") }

    func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream) {
        record("publisher streamDestroyed \(stream.streamId)")
        publisher.view?.removeFromSuperview()
    }

    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) { record("publisher didFailWithError \(error.code)") }

    // MARK: - Subscribing to streams

    func session(_ session: OTSession, streamCreated stream: OTStream) {
        print("Session streamCreated: \(stream.streamId)")
        record("session streamCreated \(stream.streamId)")

        if stream.connection.connectionId == session.connection.connectionId {
            // This is my own stream
        } else {
            // This is a stream from another client.
        }
        guard subscribeToStreams else { return }

        subscriber = OTSubscriber(stream: stream, delegate: self)
        var error: OTError?
        session.subscribe(subscriber!, error: &error)

        if let error {
            print("subscribe failed with error: \(error)")
        }
    }

    func doUnsubscribe() {
        guard let session else { return }
        var error: OTError?
        session.unsubscribe(subscriber, error: &error)
        if let error {
            print("unsubscribe failed with error: \(error)")
        }
        subscriber?.view?.removeFromSuperview()
    }

    func session(_ session: OTSession, streamDestroyed stream: OTStream) {
        print("Session streamDestroyed: \(stream.streamId)")
        record("session streamDestroyed \(stream.streamId)")

        if subscriber?.stream?.streamId == stream.streamId {
            subscriber?.view?.removeFromSuperview()
            subscriber = nil
        }
    }

    func subscriberDidConnect(toStream subscriber: OTSubscriberKit) {
        record("subscriberDidConnect \(subscriber.stream.streamId)")
        if let subscriberView = self.subscriber?.view {
            subscriberView.frame = CGRect(x: 0, y: 240, width: 320, height: 240)  // then: add it to the UI
        }
    }

    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) { record("subscriber didFailWithError \(error.code)") }

    func subscriberDidDisconnect(fromStream subscriber: OTSubscriberKit) { record("subscriberDidDisconnect") }

    func subscriberDidReconnect(toStream subscriber: OTSubscriberKit) { record("subscriberDidReconnect") }

    func subscriberVideoDisabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) {
        print("subscriber video disabled.")
        record("subscriberVideoDisabled \(reason.rawValue)")
    }

    func subscriberVideoEnabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) {
        record("subscriberVideoEnabled \(reason.rawValue)")
    }

    // MARK: - Signals (the session reference's call shapes)

    func sendChat(_ text: String) {
        var error: OTError?
        session?.signal(withType: "chat", string: text, connection: nil, error: &error)
        if let error { print("signal failed with error: \(error)") }
    }

    func sendChatNoRetry(_ text: String) {
        var error: OTError?
        session?.signal(withType: "chat", string: text, connection: nil, retryAfterReconnect: false, error: &error)
        if let error { print("signal failed with error: \(error)") }
    }
}
