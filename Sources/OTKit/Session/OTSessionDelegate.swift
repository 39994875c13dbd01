/// What a session tells its app (`OTSessionDelegate`). Every method is optional (has an
/// empty default) and is called on the session's `apiQueue`, in the order things
/// happened. The session holds its delegate weakly.
///
/// Order guarantees: `sessionDidConnect` comes first, then `connectionCreated` for every
/// client already in the session (never for yourself) and `streamCreated` for their
/// streams (never for your own: that goes to `publisher(_:streamCreated:)`). When a
/// connected session drops, `session(_:didFailWithError:)` comes just before
/// `sessionDidDisconnect`.
public protocol OTSessionDelegate: AnyObject {
    /// The session connected; `connection` and `capabilities` are set.
    func sessionDidConnect(_ session: OTSession)
    /// The session disconnected (after `disconnect()`, a forced disconnect, or a drop).
    func sessionDidDisconnect(_ session: OTSession)
    /// Connecting failed, or a connected session dropped (then `sessionDidDisconnect` follows).
    func session(_ session: OTSession, didFailWithError error: OTError)
    /// Another client published a stream.
    func session(_ session: OTSession, streamCreated stream: OTStream)
    /// Another client's stream ended.
    func session(_ session: OTSession, streamDestroyed stream: OTStream)
    /// Another client connected (or was there when you connected).
    func session(_ session: OTSession, connectionCreated connection: OTConnection)
    /// Another client left.
    func session(_ session: OTSession, connectionDestroyed connection: OTConnection)
    /// A signal arrived; `connection` is nil when the REST API sent it.
    func session(_ session: OTSession, receivedSignalType type: String?, from connection: OTConnection?, with string: String?)
    /// An archive started recording the session.
    func session(_ session: OTSession, archiveStartedWithId archiveId: String, name: String?)
    /// An archive stopped.
    func session(_ session: OTSession, archiveStoppedWithId archiveId: String)
    /// The network path was lost; the session is trying to resume.
    func sessionDidBeginReconnecting(_ session: OTSession)
    /// The session resumed with the same connection, publishers and subscribers.
    func sessionDidReconnect(_ session: OTSession)
    /// A moderator muted the session (`active`) or lifted the mute state.
    func session(_ session: OTSession, muteForced info: OTMuteForcedInfo)
}

/// Empty defaults: implement only what you need.
extension OTSessionDelegate {
    /// Does nothing.
    public func sessionDidConnect(_ session: OTSession) {}
    /// Does nothing.
    public func sessionDidDisconnect(_ session: OTSession) {}
    /// Does nothing.
    public func session(_ session: OTSession, didFailWithError error: OTError) {}
    /// Does nothing.
    public func session(_ session: OTSession, streamCreated stream: OTStream) {}
    /// Does nothing.
    public func session(_ session: OTSession, streamDestroyed stream: OTStream) {}
    /// Does nothing.
    public func session(_ session: OTSession, connectionCreated connection: OTConnection) {}
    /// Does nothing.
    public func session(_ session: OTSession, connectionDestroyed connection: OTConnection) {}
    /// Does nothing.
    public func session(_ session: OTSession, receivedSignalType type: String?, from connection: OTConnection?, with string: String?) {}
    /// Does nothing.
    public func session(_ session: OTSession, archiveStartedWithId archiveId: String, name: String?) {}
    /// Does nothing.
    public func session(_ session: OTSession, archiveStoppedWithId archiveId: String) {}
    /// Does nothing.
    public func sessionDidBeginReconnecting(_ session: OTSession) {}
    /// Does nothing.
    public func sessionDidReconnect(_ session: OTSession) {}
    /// Does nothing.
    public func session(_ session: OTSession, muteForced info: OTMuteForcedInfo) {}
}
