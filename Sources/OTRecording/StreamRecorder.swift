import Glibc
import OTMedia
import Synchronization

/// Records one stream (VP8 video + Opus audio, as the router receives them after SRTP)
/// into a WebM file, without re-encoding: an individual archive's per-stream recorder.
///
/// Feed it from the forwarding path: `enqueue(_:rtp:)` for each RTP packet and
/// `enqueueSenderReport` for each RTCP sender report of the stream's two SSRCs. Those
/// calls copy into a preallocated ring and return at once; they never wait for the writer
/// and never allocate; when the ring is full the packet is dropped and counted
/// (`statistics.droppedQueueFull`). A thread of the recorder's own reorders each track
/// in a small window, reassembles VP8 frames, starts the file on a keyframe (watch
/// `needsKeyframe` and send the publisher a PLI while it is true), lines audio and video
/// up through the sender reports and writes WebM incrementally (see `WebMWriter`).
/// A file that cannot be created or written puts the recorder in `.failed(reason:)`;
/// producers are unaffected. `finish()` ends it and reports the true size and duration.
///
/// Cost: one thread and `queueCapacity × slotSize` bytes (1.5 MB by default) plus two
/// 64-packet reorder windows; per packet one copy on the producer side.
public final class StreamRecorder: Sendable {
    /// What it was created with.
    public let configuration: StreamRecorderConfiguration
    private let queue: RecordingPacketQueue
    private let loop: RecordingWriterLoop
    private let thread = Mutex<pthread_t?>(nil)
    private let result = Mutex<RecordingSummary?>(nil)

    /// Starts a recorder writing `configuration.path` (created at once; a failure shows in
    /// `state`). Cost: the ring's allocation and one thread.
    public init(configuration: StreamRecorderConfiguration) {
        self.configuration = configuration
        queue = RecordingPacketQueue(capacity: configuration.queueCapacity, slotSize: configuration.slotSize)
        loop = RecordingWriterLoop(configuration: configuration, queue: queue)
        var handle = pthread_t()
        let context = Unmanaged.passRetained(loop).toOpaque()
        let status = pthread_create(&handle, nil, { raw in
            let loop = Unmanaged<RecordingWriterLoop>.fromOpaque(raw!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        if status == 0 {
            thread.withLock { $0 = handle }
        } else {
            Unmanaged<RecordingWriterLoop>.fromOpaque(context).release()
            queue.close()
            loop.published.withLock { $0.state = .failed(reason: "could not start the recorder thread (error \(status))") }
        }
    }

    deinit { _ = finish() }

    /// Queues one RTP packet of `track` (the whole packet, header included) that arrived at
    /// `arrivalNanoseconds` on `MonotonicClock`. Returns false when it was dropped (queue
    /// full, finished, or larger than `slotSize`). Never blocks on the writer, never
    /// allocates: one short lock and one copy.
    @discardableResult
    public func enqueue(_ track: RecordingTrack, rtp packet: UnsafeRawBufferPointer,
                        arrivalNanoseconds: UInt64 = MonotonicClock.nanoseconds()) -> Bool {
        queue.push(RecordingPacketQueue.Entry(kind: track.rawValue, arrival: arrivalNanoseconds), bytes: packet)
    }

    /// Queues the NTP/RTP pair of a sender report for `track`'s SSRC (RFC 3550 6.4.1), which
    /// is how the recorder lines the two tracks up. Same costs and result as `enqueue`.
    @discardableResult
    public func enqueueSenderReport(_ track: RecordingTrack, ntpTimestamp: NTPTimestamp, rtpTimestamp: UInt32,
                                    arrivalNanoseconds: UInt64 = MonotonicClock.nanoseconds()) -> Bool {
        let entry = RecordingPacketQueue.Entry(kind: 2 + track.rawValue, arrival: arrivalNanoseconds,
                                               ntp: ntpTimestamp.rawValue, rtpTimestamp: rtpTimestamp)
        return queue.push(entry, bytes: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// True while the recorder waits for a keyframe (from its start until the first one, and
    /// after a lost frame; false once failed): the router should ask the publisher for one
    /// (PLI). One atomic load.
    public var needsKeyframe: Bool { loop.keyframeNeeded.load(ordering: .acquiring) }

    /// Where the recorder is. One lock.
    public var state: RecordingState { loop.published.withLock { $0.state } }

    /// The counters: the queue's as of now, the writer's as of the last entry it handled. Two locks.
    public var statistics: RecordingStatistics {
        var statistics = loop.published.withLock { $0.statistics }
        // The queue's own counters are current even while the writer is stalled.
        let counters = queue.counters
        statistics.enqueued = counters.pushed
        statistics.droppedQueueFull = counters.dropped
        statistics.droppedOversized = counters.oversized
        return statistics
    }

    /// Stops taking packets, writes what is queued, closes the file and reports it.
    /// Idempotent. Blocks until the writer thread ends (the queue's backlog plus the
    /// trailer: milliseconds, unless the disk is stalled).
    @discardableResult
    public func finish() -> RecordingSummary {
        // One lock over the whole stop, so concurrent callers all wait for the same end.
        result.withLock { stored in
            if let stored { return stored }
            queue.close()
            if let handle = thread.withLock({ value -> pthread_t? in defer { value = nil }; return value }) {
                pthread_join(handle, nil)
            }
            let summary = loop.summary ?? RecordingSummary(
                path: configuration.path, size: 0, durationMilliseconds: 0, startNanoseconds: nil, stopNanoseconds: nil,
                state: state, statistics: statistics)
            stored = summary
            return summary
        }
    }
}
