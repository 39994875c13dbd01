import Foundation
@testable import OTKit

/// Records every delegate call of a session (and its publisher/subscribers) as a line,
/// on the session's own serial apiQueue.
final class DelegateRecorder: OTSessionDelegate, OTPublisherKitDelegate, OTSubscriberKitDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "test.api")
    private let lock = NSLock()
    private var lines: [String] = []
    private(set) var errors: [OTError] = []
    private var streams: [OTStream] = []
    private var archives: [String: String?] = [:]

    var calls: [String] { lock.withLock { lines } }
    var lastErrors: [OTError] { lock.withLock { errors } }
    var seenStreams: [OTStream] { lock.withLock { streams } }
    /// The name each `archiveStarted` carried, by archive id (the call lines keep ids only).
    var archiveNames: [String: String?] { lock.withLock { archives } }

    private func record(_ line: String, error: OTError? = nil, stream: OTStream? = nil) {
        dispatchPrecondition(condition: .onQueue(queue))
        lock.withLock {
            lines.append(line)
            if let error { errors.append(error) }
            if let stream { streams.append(stream) }
        }
    }

    /// Waits until `predicate` holds for the calls so far (up to `seconds`).
    @discardableResult
    func wait(_ seconds: Double = 10, until predicate: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if predicate(calls) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return predicate(calls)
    }

    func sessionDidConnect(_ session: OTSession) { record("didConnect") }
    func sessionDidDisconnect(_ session: OTSession) { record("didDisconnect") }
    func session(_ session: OTSession, didFailWithError error: OTError) { record("didFail \(error.code)", error: error) }
    func session(_ session: OTSession, streamCreated stream: OTStream) { record("streamCreated \(stream.streamId)", stream: stream) }
    func session(_ session: OTSession, streamDestroyed stream: OTStream) { record("streamDestroyed \(stream.streamId)") }
    func session(_ session: OTSession, connectionCreated connection: OTConnection) { record("connectionCreated \(connection.connectionId)") }
    func session(_ session: OTSession, connectionDestroyed connection: OTConnection) { record("connectionDestroyed \(connection.connectionId)") }
    func session(_ session: OTSession, receivedSignalType type: String?, from connection: OTConnection?, with string: String?) {
        record("signal \(type ?? "nil") from \(connection?.connectionId ?? "nil"): \(string ?? "nil")")
    }
    func session(_ session: OTSession, archiveStartedWithId archiveId: String, name: String?) {
        lock.withLock { archives[archiveId] = .some(name) }
        record("archiveStarted \(archiveId) name=\(name ?? "nil")")
    }
    func session(_ session: OTSession, archiveStoppedWithId archiveId: String) { record("archiveStopped \(archiveId)") }
    func sessionDidBeginReconnecting(_ session: OTSession) { record("didBeginReconnecting") }
    func sessionDidReconnect(_ session: OTSession) { record("didReconnect") }
    func session(_ session: OTSession, muteForced info: OTMuteForcedInfo) { record("muteForced \(info.active)") }

    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) { record("publisher didFail \(error.code)", error: error) }
    func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream) { record("publisher streamCreated \(stream.streamId)") }
    func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream) { record("publisher streamDestroyed \(stream.streamId)") }
    func muteForced(_ publisher: OTPublisherKit) { record("publisher muteForced") }
    func publisherVideoDisabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason) { record("publisher videoDisabled \(reason.rawValue)") }
    func publisherVideoEnabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason) { record("publisher videoEnabled \(reason.rawValue)") }
    func publisherVideoDisableWarning(_ publisher: OTPublisherKit) { record("publisher videoDisableWarning") }
    func publisherVideoDisableWarningLifted(_ publisher: OTPublisherKit) { record("publisher videoDisableWarningLifted") }

    func subscriberDidConnect(toStream subscriber: OTSubscriberKit) { record("subscriber connected") }
    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) { record("subscriber didFail \(error.code)", error: error) }
    func subscriberDidDisconnect(fromStream subscriber: OTSubscriberKit) { record("subscriber disconnected") }
    func subscriberDidReconnect(toStream subscriber: OTSubscriberKit) { record("subscriber reconnected") }
    func subscriberVideoDisabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) { record("subscriber videoDisabled \(reason.rawValue)") }
    func subscriberVideoEnabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) { record("subscriber videoEnabled \(reason.rawValue)") }
    func subscriberVideoDisableWarning(_ subscriber: OTSubscriberKit) { record("subscriber videoDisableWarning") }
    func subscriberVideoDisableWarningLifted(_ subscriber: OTSubscriberKit) { record("subscriber videoDisableWarningLifted") }
}
