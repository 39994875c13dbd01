/// Where a session is in its life (`OTSessionConnectionStatus`, OpenTok's order of
/// values). notConnected → connecting → connected → disconnecting → notConnected;
/// reconnecting while it tries to get back after a network loss; failed after a fatal error.
public enum OTSessionConnectionStatus: Int32, Sendable, CaseIterable {
    /// Not connected (initial state, and after `sessionDidDisconnect`).
    case notConnected = 0
    /// Connected: `connection` and `capabilities` are set.
    case connected = 1
    /// `connect(withToken:)` was called; waiting for the router.
    case connecting = 2
    /// The network path was lost; the session is trying to resume.
    case reconnecting = 3
    /// `disconnect()` was called; waiting for the router to confirm.
    case disconnecting = 4
    /// A fatal error ended the session.
    case failed = 5
}
