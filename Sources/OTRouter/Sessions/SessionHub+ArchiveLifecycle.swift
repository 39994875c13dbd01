import OTSignaling

/// When archives start, pause and stop by themselves: several archives of one session
/// (`multiArchiveTag`), `paused` while no stream is published, `archiveMode: always`
/// sessions recording from their first published stream, and `maxDuration`.
extension SessionHub {
    /// Why `request` cannot start beside the archives `session` is recording now, or nil.
    /// As OpenTok: without a `multiArchiveTag` only one archive at a time; with one, not
    /// beside another of the same tag. Archives with different tags record the same streams
    /// side by side (`RecordingTaps`), whatever their output modes. Under the lock.
    func archiveConflict(_ request: ArchiveRequest, in session: SessionRecord) -> RESTError? {
        let running = session.activeArchiveIds.compactMap { archives[$0] }
        guard !running.isEmpty else { return nil }
        guard let tag = request.multiArchiveTag else { return RESTError(409, "Session is already being recorded") }
        if running.contains(where: { $0.multiArchiveTag == tag }) {
            return RESTError(409, "Session is already being recorded with multiArchiveTag \(tag)")
        }
        return nil
    }

    /// A stream landed in `session`: an `archiveMode: always` session with no archive
    /// starts one (it records the stream); otherwise the running archives take it and
    /// paused ones resume. Under the lock.
    func archiveStreamPublished(_ streamId: String, in session: inout SessionRecord) {
        if session.archiveMode == .always, session.activeArchiveIds.isEmpty, !session.relayed, !session.e2ee {
            _ = beginArchive(in: &session, ArchiveRequest(sessionId: session.id, name: session.archiveName,
                                                          resolution: session.archiveResolution))
            return
        }
        archiveStreamLanded(streamId, in: session)
        refreshArchivePause(in: session)
    }

    /// Sets each running archive of `session` to `paused` when no stream is published and
    /// back to `started` when one is. Under the lock.
    func refreshArchivePause(in session: SessionRecord) {
        let status = session.streams.isEmpty ? ArchiveRecord.paused : ArchiveRecord.started
        for archiveId in session.activeArchiveIds {
            guard var archive = archives[archiveId], archive.isRecording, archive.status != status else { continue }
            archive.status = status
            archives[archiveId] = archive
            log.log(.info, "archive.\(status)", session: session.id, ["archive": archiveId])
        }
    }

    /// Stops the archives that have run for their `maxDuration` by `nowMilliseconds`, with
    /// OpenTok's reason "maximum duration exceeded". Under the lock (the timer's tick).
    /// Cost: a pass over the sessions' running archives.
    func stopOverdueArchives(nowMilliseconds: Int64) {
        let overdue = archives.values.filter {
            $0.isRecording && nowMilliseconds - $0.createdAt >= Int64($0.maxDurationSeconds) * 1000
        }
        for archive in overdue {
            guard var session = sessions.removeValue(forKey: archive.sessionId) else {
                // Its session is gone: stop it all the same (an individual one still gets its ZIP).
                archives[archive.id]?.status = "stopped"
                archives[archive.id]?.stoppedAt = nowMilliseconds
                archives[archive.id]?.reason = ArchiveRecord.maxDurationReason
                finishIndividualRecording(archive.id)
                continue
            }
            stopArchive(archive.id, session: &session, reason: ArchiveRecord.maxDurationReason)
            sessions[archive.sessionId] = session
        }
    }
}

extension ArchiveRecord {
    /// The status while recording with streams.
    static let started = "started"
    /// The status while recording with no stream published.
    static let paused = "paused"

    /// Started or paused: still recording (it can be stopped, not deleted).
    var isRecording: Bool { status == Self.started || status == Self.paused }
}
