import Foundation
import OTKit

/// A client that implements exactly the OpenTok reference's delegate methods under their
/// Swift names (OTSessionDelegate, OTPublisherDelegate, OTSubscriberDelegate) and no
/// OTKit-specific one, each recorded as a line named after the method, on `queue`.
/// Plain `import OTKit`: nothing internal.
final class ReferenceOnlyClient: OTSessionDelegate, OTPublisherDelegate, OTSubscriberDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "reference.api")
    private let lock = NSLock()
    private var lines: [String] = []
    private var errorList: [OTError] = []

    var calls: [String] { lock.withLock { lines } }
    var errors: [OTError] { lock.withLock { errorList } }
    /// The method names called at least once (the part of each line before a space).
    var methodsCalled: Set<String> { Set(calls.map { String($0.split(separator: " ").first ?? "") }) }

    private func record(_ line: String, _ error: OTError? = nil) {
        lock.withLock {
            lines.append(line)
            if let error { errorList.append(error) }
        }
    }

    /// Waits up to `seconds` for `done` to hold of the calls so far.
    @discardableResult
    func wait(_ seconds: Double = 15, _ done: ([String]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !done(calls) { Thread.sleep(forTimeInterval: 0.02) }
        return done(calls)
    }

    // OTSessionDelegate: required
    func sessionDidConnect(_ session: OTSession) { record("sessionDidConnect") }
    func sessionDidDisconnect(_ session: OTSession) { record("sessionDidDisconnect") }
    func session(_ session: OTSession, didFailWithError error: OTError) { record("session(_:didFailWithError:) \(error.code)", error) }
    func session(_ session: OTSession, streamCreated stream: OTStream) { record("session(_:streamCreated:) \(stream.streamId)") }
    func session(_ session: OTSession, streamDestroyed stream: OTStream) { record("session(_:streamDestroyed:) \(stream.streamId)") }
    // OTSessionDelegate: optional
    func session(_ session: OTSession, connectionCreated connection: OTConnection) { record("session(_:connectionCreated:) \(connection.connectionId)") }
    func session(_ session: OTSession, connectionDestroyed connection: OTConnection) { record("session(_:connectionDestroyed:) \(connection.connectionId)") }
    func session(_ session: OTSession, receivedSignalType type: String?, from connection: OTConnection?, with string: String?) {
        record("session(_:receivedSignalType:from:with:) \(type ?? "nil") \(string ?? "nil")")
    }
    func session(_ session: OTSession, archiveStartedWithId archiveId: String, name: String?) {
        record("session(_:archiveStartedWithId:name:) \(name ?? "nil")")
    }
    func session(_ session: OTSession, archiveStoppedWithId archiveId: String) { record("session(_:archiveStoppedWithId:)") }
    func sessionDidBeginReconnecting(_ session: OTSession) { record("sessionDidBeginReconnecting") }
    func sessionDidReconnect(_ session: OTSession) { record("sessionDidReconnect") }
    func session(_ session: OTSession, muteForced muteForcedInfo: OTMuteForcedInfo) { record("session(_:muteForced:) \(muteForcedInfo.active)") }

    // OTPublisherDelegate (OTPublisherKitDelegate)
    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) { record("publisher(_:didFailWithError:) \(error.code)", error) }
    func publisher(_ publisher: OTPublisherKit, streamCreated stream: OTStream) { record("publisher(_:streamCreated:) \(stream.streamId)") }
    func publisher(_ publisher: OTPublisherKit, streamDestroyed stream: OTStream) { record("publisher(_:streamDestroyed:) \(stream.streamId)") }
    func muteForced(_ publisher: OTPublisherKit) { record("muteForced(_:)") }
    func publisherVideoDisabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason) { record("publisherVideoDisabled(_:reason:) \(reason.rawValue)") }
    func publisherVideoEnabled(_ publisher: OTPublisherKit, reason: OTPublisherVideoEventReason) { record("publisherVideoEnabled(_:reason:) \(reason.rawValue)") }
    func publisherVideoDisableWarning(_ publisher: OTPublisherKit) { record("publisherVideoDisableWarning(_:)") }
    func publisherVideoDisableWarningLifted(_ publisher: OTPublisherKit) { record("publisherVideoDisableWarningLifted(_:)") }

    // OTSubscriberDelegate (OTSubscriberKitDelegate)
    func subscriberDidConnect(toStream subscriber: OTSubscriberKit) { record("subscriberDidConnect(toStream:)") }
    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) { record("subscriber(_:didFailWithError:) \(error.code)", error) }
    func subscriberDidDisconnect(fromStream subscriber: OTSubscriberKit) { record("subscriberDidDisconnect(fromStream:)") }
    func subscriberDidReconnect(toStream subscriber: OTSubscriberKit) { record("subscriberDidReconnect(toStream:)") }
    func subscriberVideoDataReceived(_ subscriber: OTSubscriberKit) {
        // Once per frame: record the first only.
        if !calls.contains("subscriberVideoDataReceived(_:)") { record("subscriberVideoDataReceived(_:)") }
    }
    func subscriberVideoDisabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) { record("subscriberVideoDisabled(_:reason:) \(reason.rawValue)") }
    func subscriberVideoEnabled(_ subscriber: OTSubscriberKit, reason: OTSubscriberVideoEventReason) { record("subscriberVideoEnabled(_:reason:) \(reason.rawValue)") }
    func subscriberVideoDisableWarning(_ subscriber: OTSubscriberKit) { record("subscriberVideoDisableWarning(_:)") }
    func subscriberVideoDisableWarningLifted(_ subscriber: OTSubscriberKit) { record("subscriberVideoDisableWarningLifted(_:)") }
}
