import OTSignaling

/// Signals and moderation, shared by the signaling plane (moderator clients) and REST.
/// All of these run under the lock.
extension SessionHub {
    /// Delivers a signal: to every connected client, the sender included (OpenTok delivers
    /// your own signals to you), or to `to` only. Returns false when `to` is not in the session.
    func deliverSignal(type: String, data: String, from: String?, to: String?, in session: SessionRecord) -> Bool {
        let message = ServerMessage.signal(type: type, data: data, from: from)
        if let to {
            guard session.connections[to] != nil else { return false }
            sendEvent(message, to: to, in: session)  // kept for a target in its reconnection grace
        } else {
            broadcast(message, in: session)
        }
        counters.signal()
        return true
    }

    /// Mutes one stream: the media plane stops forwarding its audio and its publisher is
    /// told (`muteForced` with the stream id). Returns false for an unknown stream.
    @discardableResult
    func muteStream(_ streamId: String, in session: inout SessionRecord) -> Bool {
        guard let stream = session.streams[streamId] else { return false }
        session.streams[streamId]!.muted = true
        if stream.routed { media.setAudioMuted(streamId: streamId, true) }
        sendEvent(.muteForced(streamId: streamId, active: true), to: stream.wire.connectionId, in: session)
        log.log(.info, "stream.muted", session: session.id, ["stream": streamId])
        return true
    }

    /// "Mute all": every current stream not in `excluded` is muted, streams published
    /// later start muted, and every client hears `muteForced(nil, true)`.
    func muteAll(excluding excluded: [String], in session: inout SessionRecord) {
        session.muteAll = true
        session.muteAllExcluded = Set(excluded)
        for streamId in session.streamOrder where !session.muteAllExcluded.contains(streamId) {
            muteStream(streamId, in: &session)
        }
        broadcast(.muteForced(streamId: nil, active: true), in: session)
    }

    /// Lifts "mute all": every stream's audio flows again and every client hears
    /// `muteForced(nil, false)`.
    func disableMute(in session: inout SessionRecord) {
        session.muteAll = false
        session.muteAllExcluded = []
        for streamId in session.streamOrder where session.streams[streamId]!.muted {
            session.streams[streamId]!.muted = false
            if session.streams[streamId]!.routed { media.setAudioMuted(streamId: streamId, false) }
        }
        broadcast(.muteForced(streamId: nil, active: false), in: session)
        log.log(.info, "session.unmuted", session: session.id)
    }

    /// Force disconnect: the target hears `disconnected("forceDisconnected")` and its socket
    /// closes; the others see its streams and connection destroyed ("forceDisconnected").
    /// Returns false for an unknown connection.
    func forceDisconnect(_ connectionId: String, in sessionId: String) -> Bool {
        guard let connection = sessions[sessionId]?.connections[connectionId] else { return false }
        if let peer = connection.peer {
            send(.disconnected(reason: "forceDisconnected", code: nil), to: peer)
            close(peer, code: 1000, reason: "force disconnected")
            peers[peer.id] = nil
        }
        destroyConnection(connectionId, in: sessionId, reason: "forceDisconnected")
        return true
    }
}
