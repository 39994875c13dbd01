import Foundation
import OTMedia
import OTRecording
import Synchronization

/// The composer of one composed archive: an `ArchiveComposer` writing
/// `<archive directory>/<archiveId>.mp4`, one `ComposerStreamInput` per stream while it is
/// published (handed to the stream's forwarding thread through `MediaForwarding.setRecorder`,
/// the same `RecorderSlot` individual archives use), the layout and the streams' classes
/// passed on while it records, and at the end the file's true size and duration.
///
/// Its own lock serialises starting the composer (file creation), adding and removing
/// streams and finishing (the thread's join, the encoders' flush), so the hub's lock is
/// never held across that I/O; forwarding threads never take it. Cost: one lock; the
/// composer's thread and, per stream, its ring and decoders.
final class ComposedRecording: Sendable {
    /// What the archive ended as: the MP4 and its true size and duration, or why it failed.
    struct Outcome: Sendable {
        var filePath: String?
        var size = 0
        var durationSeconds = 0
        var failure: String?
        /// The composer's counters at the end (frames skipped behind real time, packets dropped…).
        var statistics = CompositionStatistics()
    }

    private struct State {
        var composer: ArchiveComposer?
        var active: Set<String> = []
        var failure: String?
        var started = false
        var stopped = false
        var watch: FailureWatch?
    }

    let archiveId: String
    /// The archive directory (created if missing).
    let root: String
    /// `<root>/<archiveId>.mp4`.
    let filePath: String
    private let configuration: ComposerConfiguration
    /// Where its inputs attach to streams, beside other archives' (the hub's).
    private let taps: RecordingTaps
    private let state = Mutex(State())

    init(archive: ArchiveRecord, root: String, layout: CompositionLayout, taps: RecordingTaps) {
        archiveId = archive.id
        self.taps = taps
        self.root = root
        filePath = root + "/" + archive.id + ".mp4"
        var configuration = ComposerConfiguration(path: filePath)
        configuration.canvas = CanvasResolution(parsing: archive.resolution) ?? .standard
        configuration.layout = layout
        configuration.hasAudio = archive.hasAudio
        configuration.hasVideo = archive.hasVideo
        self.configuration = configuration
    }

    /// Creates the directory and starts the composer (the file is created now, so an
    /// unwritable directory fails the archive at once). Outside the hub's lock; idempotent.
    func start() {
        state.withLock { start(&$0) }
    }

    private func start(_ state: inout State) {
        guard !state.started else { return }
        state.started = true
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            state.failure = "cannot create the archive directory \(root): \(error.localizedDescription)"
            return
        }
        let composer = ArchiveComposer(configuration: configuration)
        if case .failed(let reason) = composer.state {
            state.failure = reason
            composer.finish()
            return
        }
        state.composer = composer
    }

    /// Adds `streamId` to the composition and hands its input to the stream's forwarding
    /// thread. Outside the hub's lock.
    func begin(streamId: String, layoutStream: LayoutStream, media: any MediaForwarding) {
        state.withLock { state in
            start(&state)
            guard !state.stopped, !state.active.contains(streamId), let composer = state.composer else { return }
            let input = composer.addStream(streamId, layoutStream: layoutStream)
            guard taps.set(streamId: streamId, owner: archiveId, input, media: media) else {
                composer.removeStream(streamId)  // the stream left before its input was ready
                return
            }
            state.active.insert(streamId)
        }
    }

    /// Takes `streamId` out of the composition (it left). Outside the hub's lock.
    func end(streamId: String, media: any MediaForwarding) {
        state.withLock { state in
            guard state.active.remove(streamId) != nil else { return }
            _ = taps.set(streamId: streamId, owner: archiveId, nil, media: media)
            state.composer?.removeStream(streamId)
        }
    }

    /// Changes the layout from the next frame. Outside the hub's lock.
    func setLayout(_ layout: CompositionLayout) {
        state.withLock { $0.composer?.setLayout(layout) }
    }

    /// Changes what the layout knows of `streamId` (its classes). Outside the hub's lock.
    func setClasses(streamId: String, _ layoutStream: LayoutStream) {
        state.withLock { $0.composer?.setLayoutClasses(streamId: streamId, layoutStream) }
    }

    /// Detaches every stream, finishes the composer at `stopNanoseconds` (the instant the
    /// archive stopped, `MonotonicClock`) and reports the file. Idempotent in effect.
    func finishAll(media: any MediaForwarding, stopNanoseconds: UInt64) -> Outcome {
        state.withLock { state in
            state.stopped = true
            state.watch?.timer.cancel()
            state.watch = nil
            for streamId in state.active.sorted() { _ = taps.set(streamId: streamId, owner: archiveId, nil, media: media) }
            state.active = []
            var outcome = Outcome()
            guard let composer = state.composer else {
                outcome.failure = state.failure ?? "the composer did not start"
                return outcome
            }
            let summary = composer.finish(at: stopNanoseconds)
            outcome.statistics = summary.statistics
            outcome.durationSeconds = Int((Double(summary.durationMilliseconds) / 1000).rounded())
            if case .failed(let reason) = summary.state {
                outcome.failure = state.failure ?? "composing the archive failed: \(reason)"
                return outcome
            }
            if let failure = state.failure {
                outcome.failure = failure
                return outcome
            }
            outcome.size = summary.size
            outcome.filePath = filePath
            return outcome
        }
    }

    /// Why the archive failed so far (the directory or file could not be made, the
    /// composer's writes failed: a full disk), or nil. Cost: one lock, one composer lock.
    func currentFailure() -> String? {
        state.withLock { state in
            if let failure = state.failure { return failure }
            if let composer = state.composer, case .failed(let reason) = composer.state {
                return "composing the archive failed: \(reason)"
            }
            return nil
        }
    }

    /// Calls `failed` once, on a background queue, when the archive fails while it records,
    /// checking every `intervalMilliseconds` (as `IndividualRecording.watchForFailure`).
    /// Stops when the archive is finished. Cost: a timer; per check two locks.
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

    /// The composer's counters (nil before it starts or after it failed to). One lock.
    var statistics: CompositionStatistics? { state.withLock { $0.composer?.statistics } }
}
