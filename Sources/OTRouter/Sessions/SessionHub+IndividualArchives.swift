import Dispatch
import Foundation
import OTNet

/// Individual archives at work: a recorder per published stream while the archive runs
/// (`IndividualRecording`), the ZIP at stop, and the signed download link. The hub's lock
/// is never held across file I/O: recorders start and finish in `afterUnlock` work.
extension SessionHub {
    /// A stream was published in `session`: the individual archives in auto stream mode
    /// record it (manual ones wait for `PATCH …/streams`) (under the lock).
    func archiveStreamLanded(_ streamId: String, in session: SessionRecord) {
        composedStreamLanded(streamId, in: session)
        guard !session.relayed, let stream = session.streams[streamId] else { return }
        let data = session.connections[stream.wire.connectionId]?.data
        let media = media
        for archiveId in session.activeArchiveIds where archives[archiveId]?.streamMode != "manual" {
            guard let recording = recordings[archiveId] else { continue }
            afterUnlock { recording.begin(streamId: streamId, connectionData: data, media: media) }
        }
    }

    /// A stream left `session`: its files end, it leaves manual archives' selections, and
    /// archives with no stream left pause (under the lock).
    func archiveStreamLeft(_ streamId: String, in session: SessionRecord) {
        composedStreamLeft(streamId, in: session)
        let media = media
        for archiveId in session.activeArchiveIds {
            archives[archiveId]?.selectedStreams.removeAll { $0.streamId == streamId }
            guard let recording = recordings[archiveId] else { continue }
            afterUnlock { recording.end(streamId: streamId, media: media) }
        }
        refreshArchivePause(in: session)
    }

    /// Starts the recorders of a new individual archive, one per stream published now
    /// (auto stream mode; manual mode starts with none) (under the lock).
    func beginIndividualRecording(_ archive: ArchiveRecord, in session: SessionRecord) {
        let recording = IndividualRecording(archive: archive, root: configuration.effectiveArchiveDirectory, taps: recordingTaps)
        recordings[archive.id] = recording
        guard archive.streamMode != "manual" else { return }
        let streams = session.streamOrder.compactMap { id in
            session.streams[id].map { (id, session.connections[$0.wire.connectionId]?.data) }
        }
        let media = media
        let (archiveId, apiKey) = (archive.id, archive.apiKey)
        afterUnlock {
            for (streamId, data) in streams { recording.begin(streamId: streamId, connectionData: data, media: media) }
            recording.watchForFailure { [weak self] reason in self?.individualRecordingFailed(archiveId, apiKey: apiKey, reason) }
        }
    }

    /// A recorder of a running individual archive failed (a full disk…): the archive stops
    /// now (clients hear `archiveStopped`, the other recorders finish) and ends `failed` with
    /// the reason; forwarding is untouched. Outside the lock, on the watcher's queue.
    func individualRecordingFailed(_ archiveId: String, apiKey: String, _ reason: String) {
        log.log(.warning, "archive.recordingFailed", ["archive": archiveId, "reason": reason])
        _ = stopArchive(apiKey: apiKey, archiveId: archiveId)
    }

    /// Finishes the recorders of a stopped individual archive and writes its ZIP on a
    /// background queue (the `stop` request answers `stopped` without waiting for the
    /// copy); the archive then goes `available` (or `failed` with the reason).
    func finishIndividualRecording(_ archiveId: String) {
        guard let recording = recordings.removeValue(forKey: archiveId) else { return }
        let media = media
        afterUnlock { [self] in DispatchQueue.global(qos: .utility).async { [self] in finished(archiveId, recording, media) } }
    }

    /// The background half of `finishIndividualRecording`.
    private func finished(_ archiveId: String, _ recording: IndividualRecording, _ media: any MediaForwarding) {
        let outcome = recording.finishAll(media: media)
        perform {
            guard var archive = archives[archiveId] else {
                // Deleted while its ZIP was being written: nothing may stay behind.
                afterUnlock {
                    try? FileManager.default.removeItem(atPath: recording.zipPath)
                    try? FileManager.default.removeItem(atPath: recording.directory)
                }
                return
            }
            settleArchive(&archive, durationSeconds: outcome.durationSeconds, failure: outcome.failure, size: outcome.size,
                          filePath: outcome.zipPath)
            archives[archiveId] = archive
        }
    }

    /// The signed link path of an available archive (valid for the configured lifetime), else nil.
    func archiveLinkPath(_ archive: ArchiveRecord) -> String? {
        guard archive.status == "available", archive.filePath != nil else { return nil }
        let expires = Self.nowMilliseconds() / 1000 + Int64(configuration.archiveURLLifetimeSeconds)
        return archiveLinks.path(archiveId: archive.id, expires: expires, kind: archive.outputMode == "composed" ? .mp4 : .zip)
    }

    /// `GET /archive-file/{id}.zip|.mp4?expires=&signature=`: the ZIP (individual) or MP4 (composed) when the link is right and
    /// not expired, 403 otherwise (tampered, expired, missing), 404 once the archive is
    /// gone; nil for any other path. Cost: one HMAC, one lock; the file is streamed in
    /// `HTTPResponse.fileChunkSize` chunks by the web server, never held whole.
    func archiveFileResponse(to request: HTTPRequest) -> HTTPResponse? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0] == ArchiveLinkSigner.prefix,
              let kind = ArchiveLinkSigner.FileKind(fileName: parts[1]) else { return nil }
        func refuse(_ status: Int, _ message: String) -> HTTPResponse {
            .json(status, RESTBodies.error(RESTError(status, message)).text)
        }
        guard request.method == "GET" else { return refuse(405, "archive files are fetched by GET") }
        let archiveId = String(parts[1].dropLast(4))  // `.zip` or `.mp4`
        guard let expires = request.queryValue("expires").flatMap({ Int64($0) }),
              let signature = request.queryValue("signature"),
              archiveLinks.check(archiveId: archiveId, expires: expires, signature: signature, now: Self.nowMilliseconds() / 1000)
        else { return refuse(403, "the archive link is not signed, is tampered with or has expired") }
        guard let path = perform({ archives[archiveId]?.filePath }), path.hasSuffix(kind.suffix),
              access(path, R_OK) == 0 else { return refuse(404, "Archive not found") }
        // Streamed by the web server a chunk at a time (`HTTPResponse.bodyFile`): an archive
        // of any size costs one chunk of memory per download.
        return HTTPResponse.file(200, path: path, contentType: kind.contentType,
                                 headers: ["Content-Disposition": "attachment; filename=\"\(archiveId)\(kind.suffix)\""])
    }
}
