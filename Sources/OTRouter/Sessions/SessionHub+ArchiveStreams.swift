import OTSignaling

/// `PATCH /archive/{id}/streams`: which streams a manual-mode archive records, with
/// which tracks. The individual recorder follows (a stream added gets a file; one whose
/// tracks change gets a new file with the new tracks; one removed ends its file), and so
/// does a composed archive's composition (a stream added joins it, one removed leaves it).
extension SessionHub {
    /// Applies `change` to the archive `archiveId`: 404 unknown archive or stream, 409 not
    /// recording, 400 auto stream mode or neither track asked. Nil on success.
    func changeArchiveStreams(apiKey: String, archiveId: String, _ change: ArchiveStreamChange) -> RESTError? {
        perform {
            guard var archive = archives[archiveId], archive.apiKey == apiKey else { return RESTError(404, "Archive not found") }
            guard archive.isRecording else { return RESTError(409, "Archive is not in started state") }
            guard archive.streamMode == "manual" else {
                return RESTError(400, "Invalid request: the archive's streamMode is auto; streams are added and removed only in manual mode")
            }
            guard let session = sessions[archive.sessionId] else { return RESTError(404, "Session not found") }
            let recording = recordings[archiveId]
            let media = media
            switch change {
            case .add(let streamId, let hasAudio, let hasVideo):
                guard hasAudio || hasVideo else { return RESTError(400, "hasAudio and hasVideo cannot both be false") }
                guard let stream = session.streams[streamId] else { return RESTError(404, "Stream not found") }
                let selection = ArchiveStreamSelection(streamId: streamId, hasAudio: hasAudio, hasVideo: hasVideo)
                let data = session.connections[stream.wire.connectionId]?.data
                if let index = archive.selectedStreams.firstIndex(where: { $0.streamId == streamId }) {
                    guard archive.selectedStreams[index] != selection else { return nil }
                    archive.selectedStreams[index] = selection
                    if let recording {  // new tracks: a new file
                        afterUnlock {
                            recording.end(streamId: streamId, media: media)
                            recording.begin(streamId: streamId, connectionData: data, audio: hasAudio, video: hasVideo, media: media)
                        }
                    }
                } else {
                    archive.selectedStreams.append(selection)
                    if let recording {
                        afterUnlock { recording.begin(streamId: streamId, connectionData: data, audio: hasAudio, video: hasVideo, media: media) }
                    }
                    composedStreamSelected(archiveId, streamId: streamId, added: true, in: session)
                }
                log.log(.info, "archive.streamAdded", session: session.id,
                        ["archive": archiveId, "stream": streamId, "audio": String(hasAudio), "video": String(hasVideo)])
            case .remove(let streamId):
                guard archive.selectedStreams.contains(where: { $0.streamId == streamId }) else {
                    return RESTError(404, "Stream not found in this archive")
                }
                archive.selectedStreams.removeAll { $0.streamId == streamId }
                if let recording { afterUnlock { recording.end(streamId: streamId, media: media) } }
                composedStreamSelected(archiveId, streamId: streamId, added: false, in: session)
                log.log(.info, "archive.streamRemoved", session: session.id, ["archive": archiveId, "stream": streamId])
            }
            archives[archiveId] = archive
            return nil
        }
    }
}
