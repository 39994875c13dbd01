/// What a session tells its app (`OTSessionDelegate`), called on the session's
/// `apiQueue` in the order things happened. The session holds its delegate weakly.
///
/// Required and optional as the OpenTok reference marks them: the five methods it calls
/// required (`sessionDidConnect`, `sessionDidDisconnect`, `session(_:didFailWithError:)`,
/// `session(_:streamCreated:)`, `session(_:streamDestroyed:)`) have no default, so a
/// conforming type that misspells one does not compile. The others have empty defaults
/// in an extension (Swift has no `@optional` outside Objective-C): a misspelt optional
/// method compiles and is never called, as a misspelt `@optional` method would be on iOS.
///
/// Order guarantees: `sessionDidConnect` comes first, then `connectionCreated` for every
/// client already in the session (never for yourself) and `streamCreated` for their
/// streams (never for your own: that goes to `publisher(_:streamCreated:)`). When a
/// connected session drops, `session(_:didFailWithError:)` comes just before
/// `sessionDidDisconnect`.
public protocol OTSessionDelegate: AnyObject {
    /// Required. The session connected; `connection` and `capabilities` are set.
    func sessionDidConnect(_ session: OTSession)
    /// Required. The session disconnected (after `disconnect()`, a forced disconnect, or a drop).
    func sessionDidDisconnect(_ session: OTSession)
    /// Required. Connecting failed, or a connected session was lost (then
    /// `sessionDidDisconnect` follows). Nothing else comes here: refused signals and
    /// moderation calls go to their own completion, other router errors to
    /// `OTSession.notices`.
    func session(_ session: OTSession, didFailWithError error: OTError)
    /// Required. Another client published a stream.
    func session(_ session: OTSession, streamCreated stream: OTStream)
    /// Required. Another client's stream ended (also for a subscribed stream when the
    /// session is lost for good).
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

/// Empty defaults for the optional methods: implement only what you need.
extension OTSessionDelegate {
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
