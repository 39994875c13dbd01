import Glibc
import OTMedia
import Synchronization

/// The writer thread's side of a `StreamRecorder`: takes queue entries, reorders each
/// track, reassembles VP8 frames, maps timestamps onto one timeline and writes WebM.
///
/// Rules: the file starts at the first complete keyframe (delta frames before it are
/// skipped and `needsKeyframe` is raised); after a frame is lost or incomplete, delta
/// frames are skipped until the next keyframe (so every written frame decodes cleanly)
/// and `needsKeyframe` is raised again; audio before the file's start is skipped. File
/// times never go backwards within a track (a sender report that moves a track's clock
/// back compresses a few timestamps rather than reordering them).
///
/// Cost: per packet a parse, one copy into the reorder window, the depacketizer's copy and
/// libavformat's write. Runs on one thread; `published` and `keyframeNeeded` are the only
/// state other threads read.
final class RecordingWriterLoop: @unchecked Sendable {
    let configuration: StreamRecorderConfiguration
    let queue: RecordingPacketQueue
    let published = Mutex<(state: RecordingState, statistics: RecordingStatistics)>((.waitingForKeyframe, RecordingStatistics()))
    let keyframeNeeded = Atomic<Bool>(true)  // nothing recorded yet: a keyframe is needed
    private(set) var summary: RecordingSummary?

    private let videoReorder: PacketReorderBuffer
    private let audioReorder: PacketReorderBuffer
    private let depacketizer = VP8Depacketizer()
    private var videoTimeline = TrackTimeline(track: .video)
    private var audioTimeline = TrackTimeline(track: .audio)
    /// Arrival clock minus the sender's NTP clock, from the first sender report.
    private var senderClockOffset: Int64?
    private var waitingForKeyframe = true
    private var origin: Int64?
    private var writer: WebMWriter?
    private var failure: String?
    private var lastVideoMilliseconds: Int64 = -1
    private var lastVideoStep: Int64 = 33
    private var lastAudioMilliseconds: Int64 = -1
    private var statistics = RecordingStatistics()

    init(configuration: StreamRecorderConfiguration, queue: RecordingPacketQueue) {
        self.configuration = configuration
        self.queue = queue
        videoReorder = PacketReorderBuffer(slotSize: queue.slotSize, depth: configuration.reorderDepth,
                                           timeoutNanoseconds: configuration.reorderTimeoutNanoseconds)
        audioReorder = PacketReorderBuffer(slotSize: queue.slotSize, depth: configuration.reorderDepth,
                                           timeoutNanoseconds: configuration.reorderTimeoutNanoseconds)
    }

    /// How long the writer sleeps on an empty queue: it writes in batches of this much media
    /// (the producer wakes it earlier only when a quarter of the ring is waiting).
    static let pollNanoseconds: UInt64 = 20_000_000

    /// The thread body: runs until the queue is closed and drained, then closes the file.
    func run() {
        createFile()
        while true {
            let handled = queue.pop(timeoutNanoseconds: Self.pollNanoseconds) { entry, bytes in handle(entry, bytes) }
            if handled {
                publish()
                continue
            }
            if queue.isClosedAndEmpty { break }
            let now = MonotonicClock.nanoseconds()
            videoReorder.expire(now: now) { processVideo($0, arrival: $1) }
            audioReorder.expire(now: now) { processAudio($0, arrival: $1) }
            publish()
        }
        videoReorder.drain { processVideo($0, arrival: $1) }
        audioReorder.drain { processAudio($0, arrival: $1) }
        close()
    }

    /// Creates (truncates) the file at once, so an unwritable directory fails the
    /// recording now rather than at the first keyframe.
    private func createFile() {
        let fd = Glibc.open(configuration.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 {
            fail("creating \(configuration.path) failed: \(String(cString: strerror(errno)))")
        } else {
            Glibc.close(fd)
        }
    }

    private func handle(_ entry: RecordingPacketQueue.Entry, _ bytes: UnsafeRawBufferPointer) {
        statistics.processed += 1
        guard failure == nil else { return }
        switch entry.kind {
        case 0, 1:
            guard let packet = try? RTPPacket(parsing: bytes) else { return }
            let reorder = entry.kind == 0 ? videoReorder : audioReorder
            reorder.insert(bytes, sequence: packet.sequenceNumber, arrival: entry.arrival) {
                if entry.kind == 0 { processVideo($0, arrival: $1) } else { processAudio($0, arrival: $1) }
            }
        default:
            let ntp = Int64(NTPTimestamp(rawValue: entry.ntp).unixNanoseconds)
            let offset = senderClockOffset ?? (Int64(entry.arrival) - ntp)
            senderClockOffset = offset
            if entry.kind == 2 {
                videoTimeline.apply(senderReportTime: ntp + offset, rtp: entry.rtpTimestamp)
            } else {
                audioTimeline.apply(senderReportTime: ntp + offset, rtp: entry.rtpTimestamp)
            }
        }
    }

    private func processVideo(_ bytes: UnsafeRawBufferPointer, arrival: UInt64) {
        guard configuration.hasVideo, failure == nil, let packet = try? RTPPacket(parsing: bytes) else { return }
        depacketizer.push(payload: packet.payload, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                          marker: packet.marker) { event in
            switch event {
            case .frame(let frame):
                writeVideo(frame, arrival: arrival)
            case .incompleteFrame, .lostFrames:
                statistics.videoFramesLost += 1
                waitingForKeyframe = true
                keyframeNeeded.store(true, ordering: .releasing)
            }
        }
    }

    private func writeVideo(_ frame: VP8AssembledFrame, arrival: UInt64) {
        guard failure == nil else { return }
        if waitingForKeyframe {
            guard frame.isKeyframe else {
                statistics.videoFramesSkipped += 1
                keyframeNeeded.store(true, ordering: .releasing)
                return
            }
            waitingForKeyframe = false
            keyframeNeeded.store(false, ordering: .releasing)
        }
        let time = videoTimeline.time(of: frame.rtpTimestamp, arrival: Int64(arrival))
        if writer == nil {
            open(videoSize: (frame.width, frame.height), at: time)
            guard writer != nil else { return }
        }
        guard let origin else { return }
        var milliseconds = max(0, (time - origin) / 1_000_000)
        if milliseconds <= lastVideoMilliseconds { milliseconds = lastVideoMilliseconds + 1 }
        if lastVideoMilliseconds >= 0 { lastVideoStep = max(1, min(1000, milliseconds - lastVideoMilliseconds)) }
        do {
            try writer?.write(.video, frame.data, milliseconds: milliseconds, keyframe: frame.isKeyframe)
            lastVideoMilliseconds = milliseconds
            statistics.videoFramesWritten += 1
        } catch {
            fail(error.reason)
        }
    }

    private func processAudio(_ bytes: UnsafeRawBufferPointer, arrival: UInt64) {
        guard configuration.hasAudio, failure == nil, let packet = try? RTPPacket(parsing: bytes) else { return }
        let time = audioTimeline.time(of: packet.timestamp, arrival: Int64(arrival))
        if writer == nil, !configuration.hasVideo { open(videoSize: nil, at: time) }
        guard let origin, writer != nil, time >= origin, packet.payload.count > 0 else {
            statistics.audioPacketsSkipped += 1
            return
        }
        var milliseconds = (time - origin) / 1_000_000
        if milliseconds <= lastAudioMilliseconds { milliseconds = lastAudioMilliseconds + 1 }
        do {
            try writer?.write(.audio, packet.payload, milliseconds: milliseconds, keyframe: true)
            lastAudioMilliseconds = milliseconds
            statistics.audioPacketsWritten += 1
        } catch {
            fail(error.reason)
        }
    }

    /// Opens the WebM file with the tracks configured; `time` becomes file time 0.
    private func open(videoSize: (width: Int, height: Int)?, at time: Int64) {
        do {
            writer = try WebMWriter(path: configuration.path, videoSize: configuration.hasVideo ? videoSize : nil,
                                    audioChannels: configuration.hasAudio ? configuration.audioChannels : nil,
                                    clusterMilliseconds: configuration.clusterMilliseconds)
            origin = time
        } catch {
            fail(error.reason)
        }
    }

    private func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = reason
        writer?.close()
        writer = nil
        keyframeNeeded.store(false, ordering: .releasing)
        publish()
    }

    private func publish() {
        var merged = statistics
        let counters = queue.counters
        merged.enqueued = counters.pushed
        merged.droppedQueueFull = counters.dropped
        merged.droppedOversized = counters.oversized
        merged.latePackets = videoReorder.latePackets + videoReorder.duplicatePackets
            + audioReorder.latePackets + audioReorder.duplicatePackets
        merged.missingPackets = videoReorder.skippedPackets + audioReorder.skippedPackets
        merged.timestampDiscontinuities = videoTimeline.discontinuities + audioTimeline.discontinuities
        let state: RecordingState
        if let failure {
            state = .failed(reason: failure)
        } else {
            state = writer == nil ? .waitingForKeyframe : .recording
        }
        published.withLock { $0 = (state, merged) }
    }

    /// Finishes the file and fills `summary`.
    private func close() {
        if let writer {
            do { try writer.finish() } catch { fail(error.reason) }
        }
        writer = nil
        publish()
        var size = 0
        var info = stat()
        if stat(configuration.path, &info) == 0 { size = Int(info.st_size) }
        let duration = Int(max(lastVideoMilliseconds >= 0 ? lastVideoMilliseconds + lastVideoStep : 0,
                               lastAudioMilliseconds >= 0 ? lastAudioMilliseconds + 20 : 0))
        let start = origin.map { UInt64(max(0, $0)) }
        let final: RecordingState = failure.map { .failed(reason: $0) } ?? .finished
        published.withLock { $0.state = final }
        summary = RecordingSummary(path: configuration.path, size: size, durationMilliseconds: duration,
                                   startNanoseconds: start, stopNanoseconds: start.map { $0 + UInt64(duration) * 1_000_000 },
                                   state: final, statistics: published.withLock { $0.statistics })
    }
}
