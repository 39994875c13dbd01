import Dispatch
import Foundation
import OTMedia
import OTRecording

/// Composed archives at work: one `ComposedRecording` (an `ArchiveComposer` writing an MP4)
/// per running composed archive, every published stream fed to it, streams joining and
/// leaving mid-archive added and removed, the layout and the streams' layout classes
/// passed on while it records, and at stop the file's size and duration (`available`) or
/// the reason it failed. The hub's lock is never held across file I/O: the composer
/// starts, changes and finishes in `afterUnlock` work.
extension SessionHub {
    /// Starts the composer of a new composed archive with every stream published now (auto
    /// stream mode; manual mode starts with none and follows `PATCH …/streams`) (under the lock).
    func beginComposedRecording(_ archive: ArchiveRecord, layout: CompositionLayout?, in session: SessionRecord) {
        let recording = ComposedRecording(archive: archive, root: configuration.effectiveArchiveDirectory,
                                          layout: layout ?? .standard, taps: recordingTaps)
        composedRecordings[archive.id] = recording
        let streams = archive.streamMode == "manual" ? [] :
            session.streamOrder.compactMap { id in session.streams[id].map { (id, Self.layoutStream($0)) } }
        let media = media
        let (archiveId, apiKey) = (archive.id, archive.apiKey)
        afterUnlock {
            recording.start()
            for (streamId, layoutStream) in streams { recording.begin(streamId: streamId, layoutStream: layoutStream, media: media) }
            recording.watchForFailure { [weak self] reason in self?.composedRecordingFailed(archiveId, apiKey: apiKey, reason) }
        }
    }

    /// A running composed archive failed (a full disk, an unwritable file): the archive
    /// stops now (clients hear `archiveStopped`) and ends `failed` with the reason; the
    /// composer keeps draining its inputs until it is finished, so forwarding is untouched.
    /// Outside the lock, on the watcher's queue.
    func composedRecordingFailed(_ archiveId: String, apiKey: String, _ reason: String) {
        log.log(.warning, "archive.recordingFailed", ["archive": archiveId, "reason": reason])
        _ = stopArchive(apiKey: apiKey, archiveId: archiveId)
    }

    /// A stream was published in `session`: add it to every running composed archive of
    /// the session in auto stream mode (under the lock).
    func composedStreamLanded(_ streamId: String, in session: SessionRecord) {
        guard !session.relayed, let stream = session.streams[streamId] else { return }
        let layoutStream = Self.layoutStream(stream)
        let media = media
        for archiveId in session.activeArchiveIds where archives[archiveId]?.streamMode != "manual" {
            guard let recording = composedRecordings[archiveId] else { continue }
            afterUnlock { recording.begin(streamId: streamId, layoutStream: layoutStream, media: media) }
        }
    }

    /// A stream left `session`: take it out of every running composed archive (under the lock).
    func composedStreamLeft(_ streamId: String, in session: SessionRecord) {
        let media = media
        for archiveId in session.activeArchiveIds {
            guard let recording = composedRecordings[archiveId] else { continue }
            afterUnlock { recording.end(streamId: streamId, media: media) }
        }
    }

    /// Finishes a stopped composed archive's composer on a background queue (the `stop`
    /// request answers `stopped` without waiting for the encoders' flush); the archive then
    /// goes `available` (or `failed` with the reason). Under the lock.
    func finishComposedRecording(_ archiveId: String) {
        guard let recording = composedRecordings.removeValue(forKey: archiveId) else { return }
        let media = media
        let stop = MonotonicClock.nanoseconds()  // the file ends here, however late the background work runs
        afterUnlock { [self] in
            DispatchQueue.global(qos: .utility).async { [self] in composedFinished(archiveId, recording, media, stop) }
        }
    }

    /// `PUT /archive/{id}/layout`: 404 unknown, 400 not composed, 409 not recording.
    func setArchiveLayout(apiKey: String, archiveId: String, _ layout: CompositionLayout) -> RESTError? {
        perform {
            guard let archive = archives[archiveId], archive.apiKey == apiKey else { return RESTError(404, "Archive not found") }
            guard archive.outputMode == "composed" else { return RESTError(400, "Only composed archives have a layout") }
            guard archive.status == "started", let recording = composedRecordings[archiveId] else {
                return RESTError(409, "Archive is not in started state")
            }
            afterUnlock { recording.setLayout(layout) }
            log.log(.info, "archive.layout", session: archive.sessionId, ["archive": archiveId, "type": layout.kind.rawValue])
            return nil
        }
    }

    /// `PUT /session/{id}/stream`: sets the layout class lists of streams of the session
    /// (all or nothing: 404 for an unknown session or stream) and passes them to a running
    /// composed archive.
    func setStreamClassLists(apiKey: String, sessionId: String, _ items: [(streamId: String, classes: [String])]) -> RESTError? {
        perform {
            guard var session = sessions[sessionId], session.apiKey == apiKey else { return RESTError(404, "Session not found") }
            for item in items where session.streams[item.streamId] == nil {
                return RESTError(404, "Stream not found: \(item.streamId)")
            }
            for item in items { session.streams[item.streamId]?.layoutClassList = item.classes }
            sessions[sessionId] = session
            let updates = items.compactMap { item in session.streams[item.streamId].map { (item.streamId, Self.layoutStream($0)) } }
            for archiveId in session.activeArchiveIds {
                guard let recording = composedRecordings[archiveId] else { continue }
                afterUnlock { for (streamId, layoutStream) in updates { recording.setClasses(streamId: streamId, layoutStream) } }
            }
            return nil
        }
    }

    /// The router is stopping: every running composer ends now (its thread joined, its
    /// file finished and playable), so no composer thread outlives the router. Takes the
    /// lock briefly; the joins run outside it.
    func stopComposers() {
        let running = perform { () -> [ComposedRecording] in
            defer { composedRecordings = [:] }
            return Array(composedRecordings.values)
        }
        let media = media
        let now = MonotonicClock.nanoseconds()
        for recording in running { _ = recording.finishAll(media: media, stopNanoseconds: now) }
    }

    /// What the layout math needs of a stream.
    static func layoutStream(_ stream: StreamRecord) -> LayoutStream {
        LayoutStream(layoutClassList: stream.layoutClassList, videoType: stream.wire.videoType)
    }

    /// The background half of `finishComposedRecording`.
    private func composedFinished(_ archiveId: String, _ recording: ComposedRecording, _ media: any MediaForwarding,
                                  _ stop: UInt64) {
        let outcome = recording.finishAll(media: media, stopNanoseconds: stop)
        perform {
            guard var archive = archives[archiveId] else {
                afterUnlock { try? FileManager.default.removeItem(atPath: recording.filePath) }  // deleted meanwhile
                return
            }
            let statistics = outcome.statistics
            settleArchive(&archive, durationSeconds: outcome.durationSeconds, failure: outcome.failure, size: outcome.size,
                          filePath: outcome.filePath,
                          details: ["framesComposed": String(statistics.framesComposed), "framesSkipped": String(statistics.framesSkipped),
                                    "droppedPackets": String(statistics.droppedPackets)])
            if outcome.failure == nil, statistics.framesSkipped > 0 || statistics.droppedPackets > 0 {
                log.log(.warning, "archive.behind", session: archive.sessionId,
                        ["archive": archiveId, "framesSkipped": String(statistics.framesSkipped),
                         "droppedPackets": String(statistics.droppedPackets)])
            }
            archives[archiveId] = archive
        }
    }

    /// `PATCH …/streams` on a composed archive in manual mode: the stream joins the
    /// composition (`add`) or leaves it. The composition shows a stream's picture and mixes
    /// its audio; per-stream `hasAudio`/`hasVideo` apply to individual archives only. Under the lock.
    func composedStreamSelected(_ archiveId: String, streamId: String, added: Bool, in session: SessionRecord) {
        guard let recording = composedRecordings[archiveId] else { return }
        let media = media
        if added, let stream = session.streams[streamId] {
            let layoutStream = Self.layoutStream(stream)
            afterUnlock { recording.begin(streamId: streamId, layoutStream: layoutStream, media: media) }
        } else if !added {
            afterUnlock { recording.end(streamId: streamId, media: media) }
        }
    }
}
