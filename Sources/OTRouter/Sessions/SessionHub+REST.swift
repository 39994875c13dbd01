/// What the REST API does to sessions: each takes the lock once. A session of another
/// project is reported as not found.
extension SessionHub {
    /// The session `sessionId` if it belongs to `apiKey` (under the lock).
    private func project(_ apiKey: String, _ sessionId: String) -> SessionRecord? {
        sessions[sessionId].flatMap { $0.apiKey == apiKey ? $0 : nil }
    }

    /// A signal from the server (`from` nil): 404 for an unknown session or connection.
    func restSignal(apiKey: String, sessionId: String, to: String?, type: String, data: String) -> RESTError? {
        perform {
            guard let session = project(apiKey, sessionId) else { return RESTError(404, "Session not found") }
            guard deliverSignal(type: type, data: data, from: nil, to: to, in: session) else {
                return RESTError(404, "Connection \(to ?? "") is not connected to the session")
            }
            return nil
        }
    }

    /// Force disconnect: 404 for an unknown session or connection.
    func restForceDisconnect(apiKey: String, sessionId: String, connectionId: String) -> RESTError? {
        perform {
            guard project(apiKey, sessionId) != nil else { return RESTError(404, "Session not found") }
            guard forceDisconnect(connectionId, in: sessionId) else {
                return RESTError(404, "Connection \(connectionId) is not connected to the session")
            }
            return nil
        }
    }

    /// Mute all (with exclusions) or, with `active` false, lift it: 404 unknown session.
    func restMuteAll(apiKey: String, sessionId: String, active: Bool, excluded: [String]) -> RESTError? {
        perform {
            guard project(apiKey, sessionId) != nil, var session = sessions.removeValue(forKey: sessionId) else {
                return RESTError(404, "Session not found")
            }
            if active { muteAll(excluding: excluded, in: &session) } else { disableMute(in: &session) }
            sessions[sessionId] = session
            return nil
        }
    }

    /// Mute one stream: 404 unknown session or stream.
    func restMuteStream(apiKey: String, sessionId: String, streamId: String) -> RESTError? {
        perform {
            guard project(apiKey, sessionId) != nil, var session = sessions.removeValue(forKey: sessionId) else {
                return RESTError(404, "Session not found")
            }
            defer { sessions[sessionId] = session }
            return muteStream(streamId, in: &session) ? nil : RESTError(404, "Stream \(streamId) not found")
        }
    }

    /// The streams of a session in publish order, nil for an unknown session.
    func streams(apiKey: String, sessionId: String) -> [StreamRecord]? {
        perform { project(apiKey, sessionId).map { session in session.streamOrder.compactMap { session.streams[$0] } } }
    }

    /// A stored issue report.
    func issue(apiKey: String, issueId: String) -> IssueRecord? {
        perform { issues[issueId].flatMap { $0.apiKey == apiKey ? $0 : nil } }
    }
}
