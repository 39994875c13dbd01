import Glibc
import OTMedia
import Synchronization

/// Records a composed archive: every stream decoded, laid out on a canvas, every stream's
/// audio mixed, encoded to H.264 + AAC in a fragmented MP4 (`MP4Writer`), at a fixed frame
/// rate on a thread of its own.
///
/// Feeding: `addStream` gives a `ComposerStreamInput` for a stream's forwarding thread
/// (bounded ring, never blocks, drops and counts when full); `removeStream` takes it out.
/// `setLayout` and `setLayoutClasses` change the layout while recording (applied at the
/// next frame). Timing: the thread ticks at `frameRate` on the monotonic clock from the
/// composer's start; at each tick it drains the inputs, decodes, draws each stream's
/// latest picture (held until the next; a placeholder before the first or for an
/// audio-only stream) into its layout rectangle with its aspect kept, encodes the canvas
/// as frame n (time n/frameRate), and mixes 48,000/frameRate samples of every stream's
/// audio (each stream's audio placed by its RTP timestamps, 40 ms after its arrival). When the
/// thread is more than `lateFramesBeforeSkipping` (2) frames behind real time it skips the video frame (counted as
/// `framesSkipped`) but still writes the audio, so the file's clock never stretches.
/// A file that cannot be created or written puts the composer in `.failed(reason:)`;
/// inputs are still drained and discarded, so forwarding is unaffected.
///
/// Cost: one thread; per stream its ring (768 KB), a VP8 and an Opus decoder; per output
/// frame a canvas fill, a libyuv scale per stream and an x264 encode (on x264's own threads,
/// or on this thread alone with `encoderThreads` 1).
public final class ArchiveComposer: Sendable {
    /// What it was created with.
    public let configuration: ComposerConfiguration
    private let shared: ComposerShared
    private let loop: ComposerLoop
    private let thread = Mutex<pthread_t?>(nil)
    private let result = Mutex<CompositionSummary?>(nil)

    /// Starts a composer writing `configuration.path` (created at once; a failure shows in `state`).
    public init(configuration: ComposerConfiguration) {
        self.configuration = configuration
        shared = ComposerShared(layout: configuration.layout)
        loop = ComposerLoop(configuration: configuration, shared: shared)
        loop.open()
        var handle = pthread_t()
        let context = Unmanaged.passRetained(loop).toOpaque()
        let status = pthread_create(&handle, nil, { raw in
            let loop = Unmanaged<ComposerLoop>.fromOpaque(raw!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        if status == 0 {
            thread.withLock { $0 = handle }
        } else {
            Unmanaged<ComposerLoop>.fromOpaque(context).release()
            loop.fail("could not start the composer thread (error \(status))")
        }
    }

    deinit { _ = finish() }

    /// Adds a stream (drawn after the streams already there, in the layout's order) and
    /// returns its input for the forwarding thread; a stream already added gets its input back.
    /// Cost: the input's ring allocation and one lock.
    public func addStream(_ streamId: String, layoutStream: LayoutStream = LayoutStream()) -> ComposerStreamInput {
        shared.change { control -> ComposerStreamInput in
            if let existing = control.streams.first(where: { $0.streamId == streamId }) { return existing }
            let input = ComposerStreamInput(streamId: streamId, layoutStream: layoutStream, wantsVideo: configuration.hasVideo,
                                            queueCapacity: configuration.queueCapacity, slotSize: configuration.slotSize)
            control.streams.append(input)
            return input
        }
    }

    /// Removes a stream (it left): its rectangle goes to the others at the next frame and its
    /// input stops taking packets. Unknown ids are ignored. One lock.
    public func removeStream(_ streamId: String) {
        let removed = shared.change { control -> ComposerStreamInput? in
            guard let index = control.streams.firstIndex(where: { $0.streamId == streamId }) else { return nil }
            return control.streams.remove(at: index)
        }
        removed?.queue.close()
    }

    /// Changes the layout from the next frame on. One lock.
    public func setLayout(_ layout: CompositionLayout) {
        shared.change { $0.layout = layout }
    }

    /// The current layout. One lock.
    public var layout: CompositionLayout { shared.control.withLock { $0.layout } }

    /// Changes what the layout knows of `streamId` (its classes, e.g. "focus"). One lock.
    public func setLayoutClasses(streamId: String, _ stream: LayoutStream) {
        shared.control.withLock { $0.streams.first { $0.streamId == streamId } }?.layoutStream = stream
    }

    /// Where the composer is. One lock.
    public var state: RecordingState { loop.published.withLock { $0.state } }

    /// The counters as of the last frame. One lock.
    public var statistics: CompositionStatistics { loop.published.withLock { $0.statistics } }

    /// Stops at `stopNanoseconds` (`MonotonicClock`; nil: now): frames due before it are
    /// written (a composer running late catches up), none after; then flushes the encoders,
    /// closes the file and reports it. Idempotent. Blocks until the thread ends (the
    /// catch-up and the encoders' flush).
    @discardableResult
    public func finish(at stopNanoseconds: UInt64? = nil) -> CompositionSummary {
        result.withLock { stored in
            if let stored { return stored }
            let inputs = shared.change { control -> [ComposerStreamInput] in
                control.stopping = true
                control.stopAt = stopNanoseconds
                return control.streams
            }
            if let handle = thread.withLock({ value -> pthread_t? in defer { value = nil }; return value }) {
                pthread_join(handle, nil)
            }
            for input in inputs { input.queue.close() }
            let summary = loop.summary ?? CompositionSummary(path: configuration.path, size: 0, durationMilliseconds: 0,
                                                             state: state, statistics: statistics)
            stored = summary
            return summary
        }
    }
}
