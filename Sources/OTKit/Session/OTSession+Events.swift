import Foundation
import OTSignaling

/// Router events (messages that answer no request). Work queue only.
extension OTSession {
    func handle(_ message: ServerMessage) {
        switch message {
        case .connectionCreated(let wire):
            let connection = OTConnection(wire)
            let isOwn = lock.withLock { () -> Bool in
                guard wire.connectionId != state.connection?.connectionId else { return true }
                state.connections[wire.connectionId] = connection
                return false
            }
            if !isOwn && !settings.connectionEventsSuppressed { deliver(.connectionCreated(connection)) }
        case .connectionDestroyed(let id, _):
            let connection = lock.withLock { state.connections.removeValue(forKey: id) }
            if let connection, !settings.connectionEventsSuppressed { deliver(.connectionDestroyed(connection)) }
        case .streamCreated(let wire):
            let isOwn = lock.withLock { wire.connectionId == state.connection?.connectionId || state.streams[wire.streamId] != nil }
            if !isOwn { addStream(wire) }
        case .streamDestroyed(let id, let reason):
            let publisher = lock.withLock { state.publisher }
            if let publisher, publisher.ownsStream(id) {
                lock.withLock { state.publisher = nil }
                publisher.streamEnded(self, reason: reason)
            } else {
                removeStream(id)
            }
        case .streamChanged(let change):
            streamChanged(change)
        case .streamInterrupted(let id):
            for subscriber in subscribers(of: id) { subscriber.reportDisconnected() }
        case .streamResumed(let id):
            for subscriber in subscribers(of: id) { subscriber.reportReconnected() }
        case .signal(let type, let data, let from):
            let connection: OTConnection? = from.flatMap { id in
                lock.withLock { state.connection?.connectionId == id ? state.connection : state.connections[id] }
                    ?? OTConnection(connectionId: id, creationTime: Date(), data: nil)
            }
            deliver(.signal(type: type, from: connection, data: data))
        case .muteForced(let streamId, let active):
            if let streamId {
                let publisher = lock.withLock { state.publisher }
                if let publisher, publisher.ownsStream(streamId), active { publisher.applyForcedMute() }
            } else {
                lock.withLock { state.forceMuteAllActive = active }
                deliver(.muteForced(OTMuteForcedInfo(active: active)))
            }
        case .archiveStarted(let archive):
            lock.withLock { state.activeArchiveId = archive.id }
            deliver(.archiveStarted(id: archive.id, name: archive.name.isEmpty ? nil : archive.name))
        case .archiveStopped(let id):
            lock.withLock { if state.activeArchiveId == id { state.activeArchiveId = nil } }
            deliver(.archiveStopped(id: id))
        case .disconnected(let reason, let code):
            log.add("the router disconnected us: \(reason)")
            finishDisconnect(error: code.map { OTError(sessionCode: $0, "the router closed the connection: \(reason)") })
        case .error(let error):
            // Answers no request and ends nothing: not a session failure (the reference
            // keeps didFailWithError for a failed connect or a lost session).
            notify(.routerError, OTError(sessionCode: error.code, error.message))
        case .subscriberQuality(let event):
            let subscriber = lock.withLock { state.subscribers.first { $0.subscriberId == event.subscriberId } }
            if let subscriber { subscriber.qualityEvent(event) } else { log.add("quality event for unknown subscriber \(event.subscriberId)") }
        case .encodingPreferences(let preferences):
            let publisher = lock.withLock { state.publisher }
            if let publisher { publisher.applyEncodingPreferences(preferences) } else { log.add("encoding preferences without a publisher") }
        case .relayedReceiversRevoked(let revoked):
            let publisher = lock.withLock { state.publisher }
            if let publisher { publisher.revokeRelayedReceivers(revoked) } else { log.add("receiver revocation without a publisher") }
        case .mediaFailed(let failure):
            mediaFailed(failure)
        case .move(let move):
            moveToAnotherRouter(move)
        case .connected, .published, .subscribed, .issueReported, .ok, .pong:
            log.add("unexpected reply without a request")
        }
    }

    private func subscribers(of streamId: String) -> [OTSubscriberKit] {
        lock.withLock { state.subscribers.filter { $0.stream.streamId == streamId } }
    }

    private func streamChanged(_ change: StreamChange) {
        let (stream, subscribers) = lock.withLock { (state.streams[change.streamId], state.subscribers.filter { $0.stream.streamId == change.streamId }) }
        guard let stream else { return }
        let hadVideo = stream.hasVideo
        stream.update(hasAudio: change.hasAudio, hasVideo: change.hasVideo)
        if let width = change.videoWidth, let height = change.videoHeight {
            stream.update(videoDimensions: OTVideoDimensions(width: width, height: height))
        }
        if let hasVideo = change.hasVideo, hasVideo != hadVideo {
            for subscriber in subscribers { subscriber.reportVideo(enabled: hasVideo, reason: .publisherPropertyChanged) }
        }
    }
}
