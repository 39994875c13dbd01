import Dispatch
import Foundation
import OTMedia
import OTRecording
import Synchronization

/// The recorders of one individual archive: one `StreamRecorder` per stream while it is
/// published (a stream published again is a new stream, so a new file), fed by the
/// stream's forwarding thread through `MediaForwarding.setRecorder`; at the end the ZIP of
/// the WebM files and OpenTok's manifest.
///
/// Its own lock serialises starting and finishing recorders (file creation, the writer's
/// join, the ZIP) so the hub's lock is never held across that I/O; the forwarding threads
/// never take it. Cost: one lock; per stream a recorder (one thread, its 1.5 MB ring).
final class IndividualRecording: Sendable {
    /// What the archive ended as: the ZIP and its true size and duration, or why it failed.
    struct Outcome: Sendable {
        var zipPath: String?
        var size = 0
        var durationSeconds = 0
        var failure: String?
    }

    private struct Entry {
        let recorder: StreamRecorder
        let streamId: String
        let connectionData: String?
        let filename: String
    }

    private struct State {
        var active: [String: Entry] = [:]
        var files: [(file: IndividualArchiveManifest.File, path: String)] = []
        var failure: String?
        var stopped = false
        var watch: FailureWatch?
    }

    let archiveId: String
    let sessionId: String
    let name: String?
    let createdAt: Int64
    let hasAudio: Bool
    let hasVideo: Bool
    /// `<archive directory>/<archiveId>`: the WebM files.
    let directory: String
    /// The ZIP written at the end, beside that directory.
    let zipPath: String
    /// The archive's start on the recorders' clock (`MonotonicClock`), for the offsets.
    let startNanoseconds: UInt64
    /// Where its recorders attach to streams, beside other archives' (the hub's).
    private let taps: RecordingTaps
    private let state = Mutex(State())

    init(archive: ArchiveRecord, root: String, taps: RecordingTaps) {
        archiveId = archive.id
        self.taps = taps
        sessionId = archive.sessionId
        name = archive.name
        createdAt = archive.createdAt
        hasAudio = archive.hasAudio
        hasVideo = archive.hasVideo
        directory = root + "/" + archive.id
        zipPath = root + "/" + archive.id + ".zip"
        startNanoseconds = MonotonicClock.nanoseconds()
    }

    /// Starts recording `streamId` (its file `<streamId>.webm`, `-2`… if it was recorded
    /// before) and hands the recorder to its forwarding thread; `audio`/`video` narrow the
    /// archive's tracks for this stream (manual stream mode). A directory that cannot be
    /// made, or a file that cannot be created, marks the archive failed; nothing else is
    /// disturbed. Outside the hub's lock.
    func begin(streamId: String, connectionData: String?, audio: Bool = true, video: Bool = true, media: any MediaForwarding) {
        state.withLock { state in
            guard !state.stopped, state.active[streamId] == nil else { return }
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                state.failure = state.failure ?? "cannot create the archive directory \(directory): \(error.localizedDescription)"
                return
            }
            let earlier = state.files.filter { $0.file.streamId == streamId }.count
            let filename = streamId + (earlier == 0 ? "" : "-\(earlier + 1)") + ".webm"
            var configuration = StreamRecorderConfiguration(path: directory + "/" + filename)
            configuration.hasAudio = hasAudio && audio
            configuration.hasVideo = hasVideo && video
            let recorder = StreamRecorder(configuration: configuration)
            if case .failed(let reason) = recorder.state {
                state.failure = state.failure ?? "recording \(streamId) failed: \(reason)"
                recorder.finish()
                return
            }
            guard taps.set(streamId: streamId, owner: archiveId, recorder, media: media) else {
                // The stream left before its recorder was ready: nothing to keep.
                recorder.finish()
                unlink(configuration.path)
                return
            }
            state.active[streamId] = Entry(recorder: recorder, streamId: streamId, connectionData: connectionData,
                                           filename: filename)
        }
    }

    /// Finishes `streamId`'s recorder (it left the session), keeping its file for the ZIP.
    func end(streamId: String, media: any MediaForwarding) {
        state.withLock { state in
            guard let entry = state.active.removeValue(forKey: streamId) else { return }
            _ = taps.set(streamId: streamId, owner: archiveId, nil, media: media)
            close(entry, into: &state)
        }
    }

    /// Calls `failed` once, on a background queue, when the archive fails while it records
    /// (a file that cannot be created, a recorder whose writes fail: a full disk), checking
    /// every `intervalMilliseconds`. Stops when the archive is finished. Cost: a timer; per
    /// check one lock per recorder.
    func watchForFailure(intervalMilliseconds: Int = 250, _ failed: @escaping @Sendable (String) -> Void) {
        let watch = FailureWatch(DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility)))
        let timer = watch.timer
        timer.schedule(deadline: .now() + .milliseconds(intervalMilliseconds), repeating: .milliseconds(intervalMilliseconds))
        timer.setEventHandler { [weak self] in
            guard let self, let reason = self.currentFailure() else { return }
            self.state.withLock { $0.watch?.timer.cancel(); $0.watch = nil }
            failed(reason)
        }
        state.withLock { state in
            guard !state.stopped else { return }
            state.watch = watch
            watch.timer.resume()
        }
    }

    /// Why the archive failed so far, or nil. A recorder's own failure counts at once.
    /// Cost: one lock per recorder.
    func currentFailure() -> String? {
        state.withLock { state in
            if let failure = state.failure { return failure }
            for (streamId, entry) in state.active.sorted(by: { $0.key < $1.key }) {
                if case .failed(let reason) = entry.recorder.state { return "recording \(streamId) failed: \(reason)" }
            }
            return nil
        }
    }

    /// Finishes every recorder and writes the ZIP. Idempotent in effect (later calls find
    /// nothing left to finish and write the same ZIP again).
    func finishAll(media: any MediaForwarding) -> Outcome {
        state.withLock { state in
            state.stopped = true
            state.watch?.timer.cancel()
            state.watch = nil
            for (streamId, entry) in state.active.sorted(by: { $0.key < $1.key }) {
                _ = taps.set(streamId: streamId, owner: archiveId, nil, media: media)
                close(entry, into: &state)
            }
            state.active = [:]
            var outcome = Outcome()
            let stop = state.files.map(\.file.stopTimeOffset).max() ?? 0
            outcome.durationSeconds = Int((Double(stop) / 1000).rounded())
            if let failure = state.failure {
                outcome.failure = failure
                return outcome
            }
            let ordered = state.files.sorted { $0.file.startTimeOffset < $1.file.startTimeOffset }
            let manifest = IndividualArchiveManifest(id: archiveId, name: name, sessionId: sessionId, createdAt: createdAt,
                                                     files: ordered.map(\.file))
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try ArchiveBundle.write(zipPath: zipPath, files: ordered.map { ($0.path, $0.file.filename) }, manifest: manifest)
            } catch {
                outcome.failure = "writing the archive's ZIP failed: \(error)"
                return outcome
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: zipPath)
            outcome.size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            outcome.zipPath = zipPath
            return outcome
        }
    }

    /// Joins the recorder's writer and files its summary (under `state`'s lock).
    private func close(_ entry: Entry, into state: inout State) {
        let summary = entry.recorder.finish()
        if case .failed(let reason) = summary.state {
            state.failure = state.failure ?? "recording \(entry.streamId) failed: \(reason)"
        }
        guard summary.size > 0, summary.startNanoseconds != nil else { return }  // nothing was written
        let file = IndividualArchiveManifest.file(streamId: entry.streamId, connectionData: entry.connectionData,
                                                  filename: entry.filename, summary: summary,
                                                  archiveStartNanoseconds: startNanoseconds)
        state.files.append((file, summary.path))
    }
}

/// The failure watch's timer, kept under `IndividualRecording`'s lock (Dispatch sources are
/// thread-safe; the type is not marked Sendable). Cost: a reference.
final class FailureWatch: @unchecked Sendable {
    let timer: DispatchSourceTimer
    init(_ timer: DispatchSourceTimer) { self.timer = timer }
}
