import Foundation
import OTRecording
import OTSignaling

/// Archives: REST start/stop with events to every client. An individual archive records
/// each stream (`SessionHub+IndividualArchives`) and goes started → stopped → available
/// (or failed); a composed one is composed into an MP4 (`SessionHub+ComposedArchives`) and
/// goes the same way.
extension SessionHub {
    /// What `POST /archive` asks for.
    struct ArchiveRequest {
        var sessionId: String
        var name: String?
        var hasAudio = true
        var hasVideo = true
        var outputMode = "composed"
        var streamMode = "auto"
        var resolution: String?
        /// Lets this archive run beside others of the session with other tags.
        var multiArchiveTag: String?
        /// Seconds after which it stops itself (60...36000, checked by the REST layer).
        var maxDurationSeconds = ArchiveRecord.defaultMaxDurationSeconds
        /// Composed archives: the layout at the start (nil: bestFit).
        var layout: CompositionLayout?
    }

    /// Starts an archive: 404 unknown session, 409 relayed, end-to-end encrypted or already recording
    /// (`archiveConflict`: the same or no `multiArchiveTag`), 400 no client connected.
    func startArchive(apiKey: String, _ request: ArchiveRequest) -> Result<ArchiveRecord, RESTError> {
        perform {
            guard var session = sessions.removeValue(forKey: request.sessionId) else {
                return .failure(RESTError(404, "Session not found"))
            }
            defer { sessions[request.sessionId] = session }
            guard session.apiKey == apiKey else { return .failure(RESTError(404, "Session not found")) }
            guard !session.relayed else {
                return .failure(RESTError(409, "Archiving needs a routed session; this session is relayed (p2p.preference=enabled)"))
            }
            guard !session.e2ee else {
                return .failure(RESTError(409, "Archiving is not available for a session with end-to-end encryption: the media server cannot read its media"))
            }
            if let conflict = archiveConflict(request, in: session) { return .failure(conflict) }
            guard !session.connections.isEmpty else {
                return .failure(RESTError(400, "No clients are actively connected to the session"))
            }
            return .success(beginArchive(in: &session, request))
        }
    }

    /// Creates the archive record and tells every client (under the lock).
    func beginArchive(in session: inout SessionRecord, _ request: ArchiveRequest) -> ArchiveRecord {
        let archive = ArchiveRecord(id: Self.newID(), apiKey: session.apiKey, sessionId: session.id, name: request.name,
                                    createdAt: Self.nowMilliseconds(), hasAudio: request.hasAudio, hasVideo: request.hasVideo,
                                    outputMode: request.outputMode, streamMode: request.streamMode,
                                    resolution: request.resolution ?? "640x480")
        var record = archive
        record.multiArchiveTag = request.multiArchiveTag
        record.maxDurationSeconds = request.maxDurationSeconds
        if session.streams.isEmpty { record.status = ArchiveRecord.paused }
        archives[archive.id] = record
        archiveOrder.append(archive.id)
        session.activeArchiveIds.append(archive.id)
        if archive.outputMode == "individual" {
            beginIndividualRecording(archive, in: session)
        } else {
            beginComposedRecording(archive, layout: request.layout, in: session)
        }
        broadcast(.archiveStarted(WireArchive(id: archive.id, name: archive.name ?? "")), in: session)
        log.log(.info, "archive.started", session: session.id, ["archive": archive.id])
        return record
    }

    /// Stops `archiveId` of `session` (started or paused), with `reason` if given, and
    /// tells every client (under the lock).
    func stopArchive(_ archiveId: String, session: inout SessionRecord, reason: String? = nil) {
        guard var archive = archives[archiveId], archive.isRecording else { return }
        archive.status = "stopped"
        archive.stoppedAt = Self.nowMilliseconds()
        if let reason { archive.reason = reason }
        archives[archiveId] = archive
        session.activeArchiveIds.removeAll { $0 == archiveId }
        finishIndividualRecording(archiveId)
        finishComposedRecording(archiveId)
        broadcast(.archiveStopped(archiveId: archiveId), in: session)
        log.log(.info, "archive.stopped", session: session.id, ["archive": archiveId])
    }

    /// `POST /archive/{id}/stop`: 404 unknown, 409 not started (a paused archive stops).
    func stopArchive(apiKey: String, archiveId: String) -> Result<ArchiveRecord, RESTError> {
        perform {
            guard let archive = archives[archiveId], archive.apiKey == apiKey else { return .failure(RESTError(404, "Archive not found")) }
            guard archive.isRecording else { return .failure(RESTError(409, "Archive is not in started state")) }
            if var session = sessions.removeValue(forKey: archive.sessionId) {
                stopArchive(archiveId, session: &session)
                sessions[archive.sessionId] = session
            }
            return .success(archives[archiveId]!)
        }
    }

    /// The archive `archiveId` of `apiKey`.
    func archive(apiKey: String, archiveId: String) -> ArchiveRecord? {
        perform { archives[archiveId].flatMap { $0.apiKey == apiKey ? $0 : nil } }
    }

    /// The archives of `apiKey` (of one session if given), newest first, and their total.
    func listArchives(apiKey: String, sessionId: String?, offset: Int, count: Int) -> (total: Int, items: [ArchiveRecord]) {
        perform {
            let all = archiveOrder.reversed().compactMap { archives[$0] }
                .filter { $0.apiKey == apiKey && (sessionId == nil || $0.sessionId == sessionId) }
            return (all.count, Array(all.dropFirst(offset).prefix(count)))
        }
    }

    /// `DELETE /archive/{id}`: 404 unknown, 409 while it is still started or paused.
    func deleteArchive(apiKey: String, archiveId: String) -> RESTError? {
        perform {
            guard let archive = archives[archiveId], archive.apiKey == apiKey else { return RESTError(404, "Archive not found") }
            guard !archive.isRecording else { return RESTError(409, "Archive is in \(archive.status) state: stop it first") }
            archives[archiveId] = nil
            archiveOrder.removeAll { $0 == archiveId }
            if let path = archive.filePath {
                let directory = String(path.dropLast(4))  // `<dir>/<id>.zip` and `<dir>/<id>/`
                afterUnlock {
                    try? FileManager.default.removeItem(atPath: path)
                    try? FileManager.default.removeItem(atPath: directory)
                }
            }
            return nil
        }
    }
}
