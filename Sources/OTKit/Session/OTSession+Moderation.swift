import OTSignaling

/// Moderation (moderator tokens). Each call throws synchronously when not connected
/// (1010) or when `capabilities` says the token may not (1540 for mutes, 1520 for
/// disconnects). Success means the request was sent, as in OpenTok. A refusal from the
/// router goes to the call's `completion` (on `apiQueue`) and to `notices`
/// (`.moderationRefused`), never to `session(_:didFailWithError:)`: the session goes on.
extension OTSession {
    /// Mutes every stream except `excluding`, and streams published later, until
    /// `disableForceMute` (`forceMuteAll:error:`). `completion` gets nil when the router
    /// did it, else its refusal.
    public func forceMuteAll(excluding: [OTStream] = [], completion: (@Sendable (OTError?) -> Void)? = nil) throws(OTError) {
        try moderate(.forceMuteAll(excludedStreamIds: excluding.map(\.streamId)), code: .unableToForceMute, completion: completion)
    }

    /// Mutes one stream (`forceMuteStream:error:`); `completion` as for `forceMuteAll`.
    public func forceMuteStream(_ stream: OTStream, completion: (@Sendable (OTError?) -> Void)? = nil) throws(OTError) {
        try moderate(.forceMuteStream(streamId: stream.streamId), code: .unableToForceMute, completion: completion)
    }

    /// Lifts the session-wide mute state (`disableForceMute:`); `completion` as for
    /// `forceMuteAll`.
    public func disableForceMute(completion: (@Sendable (OTError?) -> Void)? = nil) throws(OTError) {
        try moderate(.disableForceMute, code: .unableToForceMute, completion: completion)
    }

    /// Disconnects another client (`forceDisconnect:error:`); `completion` as for
    /// `forceMuteAll`.
    public func forceDisconnect(_ connection: OTConnection, completion: (@Sendable (OTError?) -> Void)? = nil) throws(OTError) {
        try moderate(.forceDisconnect(connectionId: connection.connectionId), code: .unableToForceDisconnect, completion: completion)
    }

    private func moderate(_ message: ClientMessage, code: OTSessionErrorCode, completion: (@Sendable (OTError?) -> Void)?) throws(OTError) {
        try lock.withTypedLock { () throws(OTError) in
            guard state.status == .connected else { throw OTError(.notConnected, "moderation needs a connected session") }
            let allowed = code == .unableToForceMute ? state.capabilities?.canForceMute : state.capabilities?.canForceDisconnect
            guard allowed == true else {
                throw OTError(code, "this token's role is not moderator")
            }
        }
        work.async {
            let sent = self.channel?.request(message, answerOnClose: completion != nil) { reply in
                if case .error(let error) = reply {
                    let refusal = OTError(sessionCode: error.code, error.message)
                    if error.code != Int(OTSessionErrorCode.connectionDropped.rawValue) && error.code != Int(OTSessionErrorCode.notConnected.rawValue) {
                        self.notify(.moderationRefused, refusal)
                    }
                    self.completeSignal(completion, refusal)
                } else {
                    self.completeSignal(completion, nil)
                }
            } ?? false
            if !sent { self.completeSignal(completion, OTError(.notConnected, "the session is not connected")) }
        }
    }
}
