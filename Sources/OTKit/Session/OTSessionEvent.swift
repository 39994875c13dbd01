/// The session's delegate calls as values, for `OTSession.events` (an `AsyncStream`).
/// Each case mirrors the `OTSessionDelegate` method of the same name and is yielded
/// right after that method is called, on the same queue, in the same order.
public enum OTSessionEvent: Sendable {
    /// `sessionDidConnect`.
    case didConnect
    /// `sessionDidDisconnect`.
    case didDisconnect
    /// `session(_:didFailWithError:)`.
    case didFail(OTError)
    /// `session(_:streamCreated:)`.
    case streamCreated(OTStream)
    /// `session(_:streamDestroyed:)`.
    case streamDestroyed(OTStream)
    /// `session(_:connectionCreated:)`.
    case connectionCreated(OTConnection)
    /// `session(_:connectionDestroyed:)`.
    case connectionDestroyed(OTConnection)
    /// `session(_:receivedSignalType:from:with:)`.
    case signal(type: String?, from: OTConnection?, data: String?)
    /// `session(_:archiveStartedWithId:name:)`.
    case archiveStarted(id: String, name: String?)
    /// `session(_:archiveStoppedWithId:)`.
    case archiveStopped(id: String)
    /// `sessionDidBeginReconnecting`.
    case didBeginReconnecting
    /// `sessionDidReconnect`.
    case didReconnect
    /// `session(_:muteForced:)`.
    case muteForced(OTMuteForcedInfo)
}
