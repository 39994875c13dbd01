import OTSignaling

/// Moderation (moderator tokens). Each call throws synchronously when not connected
/// (1010) or when `capabilities` says the token may not (1540 for mutes, 1520 for
/// disconnects); a refusal from the router arrives as `session(_:didFailWithError:)`
/// with the router's code.
extension OTSession {
    /// Mutes every stream except `excluding`, and streams published later, until
    /// `disableForceMute` (`forceMuteAll:error:`).
    public func forceMuteAll(excluding: [OTStream] = []) throws(OTError) {
        try moderate(.forceMuteAll(excludedStreamIds: excluding.map(\.streamId)), code: .unableToForceMute)
    }

    /// Mutes one stream (`forceMuteStream:error:`).
    public func forceMuteStream(_ stream: OTStream) throws(OTError) {
        try moderate(.forceMuteStream(streamId: stream.streamId), code: .unableToForceMute)
    }

    /// Lifts the session-wide mute state (`disableForceMute:`).
    public func disableForceMute() throws(OTError) {
        try moderate(.disableForceMute, code: .unableToForceMute)
    }

    /// Disconnects another client (`forceDisconnect:error:`). Success means the request
    /// was sent, as in OpenTok.
    public func forceDisconnect(_ connection: OTConnection) throws(OTError) {
        try moderate(.forceDisconnect(connectionId: connection.connectionId), code: .unableToForceDisconnect)
    }

    private func moderate(_ message: ClientMessage, code: OTSessionErrorCode) throws(OTError) {
        try lock.withTypedLock { () throws(OTError) in
            guard state.status == .connected else { throw OTError(.notConnected, "moderation needs a connected session") }
            let allowed = code == .unableToForceMute ? state.capabilities?.canForceMute : state.capabilities?.canForceDisconnect
            guard allowed == true else {
                throw OTError(code, "this token's role is not moderator")
            }
        }
        work.async {
            self.channel?.request(message) { reply in
                if case .error(let error) = reply {
                    self.deliver(.didFail(OTError(sessionCode: error.code, error.message)))
                }
            }
        }
    }
}
