import Glibc
import OTMedia
import Synchronization

/// The composer's thread (see `ArchiveComposer`): ticks at the frame rate, drains and
/// decodes the inputs, draws the canvas, mixes the audio and hands both to `MP4Writer`.
///
/// Cost per tick: one atomic load (control changes), each input's drain, a canvas fill,
/// one libyuv scale per stream with a picture, one x264 encode, a mix of 48,000/frameRate
/// samples per stream. Nothing is allocated per tick (buffers are made when streams or
/// the layout change). Runs on one thread; `published` is what others read.
final class ComposerLoop: @unchecked Sendable {
    let configuration: ComposerConfiguration
    let published = Mutex<(state: RecordingState, statistics: CompositionStatistics)>((.recording, CompositionStatistics()))
    private(set) var summary: CompositionSummary?
    private let shared: ComposerShared

    private var writer: MP4Writer?
    private var failure: String?
    private var decoders: [ComposerStreamDecoder] = []
    private var layout: CompositionLayout
    private var cells: [LayoutRect] = []
    private var order: [Int] = []
    private var generationSeen = -1
    private var stopping = false
    /// The instant the archive stopped: frames due before it are still written, none after.
    private var stopAt: UInt64?
    private var statistics = CompositionStatistics()
    private let samplesPerTick: Int
    private let mix: UnsafeMutablePointer<Int32>
    private let pcm: UnsafeMutablePointer<Int16>
    private var ticks: Int64 = 0
    private var origin: UInt64 = 0
    /// Each stream's audio plays this long after it arrives (jitter and packetization room).
    static let audioDelaySamples: Int64 = 40 * 48
    /// Each stream's audio ring: two seconds, plus the lag the composer is allowed before it
    /// skips (`lateFramesBeforeSkipping`), so audio decoded while it lags still finds its
    /// place; at most a minute (5.8 MB a stream).
    private var audioCapacitySamples: Int {
        let lag = max(0, configuration.lateFramesBeforeSkipping) * MP4Writer.sampleRate / max(1, configuration.frameRate)
        return min(60 * MP4Writer.sampleRate, 2 * MP4Writer.sampleRate + lag)
    }

    init(configuration: ComposerConfiguration, shared: ComposerShared) {
        self.configuration = configuration
        self.shared = shared
        layout = configuration.layout
        samplesPerTick = MP4Writer.sampleRate / max(1, configuration.frameRate)
        mix = .allocate(capacity: samplesPerTick)
        pcm = .allocate(capacity: samplesPerTick)
    }

    deinit {
        mix.deallocate()
        pcm.deallocate()
    }

    /// Creates the file and its encoders (on the caller's thread, so a failure shows at once).
    func open() {
        do {
            let canvas = configuration.canvas
            writer = try MP4Writer(path: configuration.path,
                                   video: configuration.hasVideo ? (canvas.width, canvas.height, configuration.frameRate,
                                                                    configuration.effectiveVideoBitrate) : nil,
                                   audio: configuration.hasAudio, threads: configuration.encoderThreads)
        } catch {
            fail(error.reason)
        }
    }

    /// The thread body: ticks until told to stop, then closes the file.
    func run() {
        origin = MonotonicClock.nanoseconds()
        let frameRate = UInt64(max(1, configuration.frameRate))
        while true {
            refreshControl()
            let now = MonotonicClock.nanoseconds()
            let due = origin + UInt64(ticks) * 1_000_000_000 / frameRate
            // Behind real time, only what had arrived by the frame's instant is decoded, so the
            // frame shows the pictures of its time, in step with its audio.
            for decoder in decoders { decoder.drain(now: min(now, due)) }
            if let stopAt, due >= stopAt { break }
            if now < due {
                if stopping, stopAt == nil { break }
                usleep(UInt32(min(4_000, (due - now) / 1_000)))
                continue
            }
            let behind = (now - due) * frameRate / 1_000_000_000
            statistics.maximumLateFrames = max(statistics.maximumLateFrames, Int(min(behind, UInt64(Int.max))))
            tick(drawVideo: behind < UInt64(max(1, configuration.lateFramesBeforeSkipping)))
            publish()
        }
        for decoder in decoders { decoder.flush() }
        close()
    }

    /// Takes the control plane's changes: streams added or removed, layout, stop; and the
    /// streams' class changes. Recomputes the rectangles when anything moved.
    private func refreshControl() {
        var changed = false
        let latest = shared.generation.load(ordering: .acquiring)
        if latest != generationSeen {
            generationSeen = latest
            let control = shared.control.withLock { $0 }
            stopping = control.stopping
            stopAt = control.stopAt
            var next: [ComposerStreamDecoder] = []
            for input in control.streams {
                if let existing = decoders.first(where: { $0.input === input }) {
                    next.append(existing)
                } else {
                    next.append(ComposerStreamDecoder(input: input, wantsVideo: configuration.hasVideo, wantsAudio: configuration.hasAudio,
                                                      reorderDepth: configuration.reorderDepth,
                                                      reorderTimeoutNanoseconds: configuration.reorderTimeoutNanoseconds,
                                                      originNanoseconds: origin, audioDelaySamples: Self.audioDelaySamples,
                                                      audioCapacitySamples: audioCapacitySamples))
                    statistics.streamsAdded += 1
                }
            }
            for decoder in decoders where !next.contains(where: { $0 === decoder }) { retire(decoder) }
            if control.layout != layout { statistics.layoutChanges += 1 }
            layout = control.layout
            decoders = next
            changed = true
        }
        for decoder in decoders where decoder.refreshClasses() {
            statistics.layoutChanges += 1
            changed = true
        }
        if changed {
            cells = LayoutMath.cells(for: decoders.map(\.layoutStream), layout: layout, canvas: configuration.canvas)
            order = LayoutMath.drawOrder(cells)
        }
    }

    /// Keeps a removed stream's counters.
    private func retire(_ decoder: ComposerStreamDecoder) {
        statistics.streamFramesDecoded += decoder.framesDecoded
        statistics.streamFramesDiscarded += decoder.framesDiscarded
        statistics.streamAudioPackets += decoder.audioPacketsDecoded
        statistics.audioSamplesDropped += decoder.audio.droppedSamples
        statistics.droppedPackets += decoder.input.droppedPackets
    }

    /// One output instant: the canvas (unless skipped) and its share of audio.
    private func tick(drawVideo: Bool) {
        defer { ticks += 1 }
        guard failure == nil, let writer else { return }
        do {
            if writer.hasVideo {
                if drawVideo {
                    try writer.encodeVideo(index: ticks) { planes in paint(planes) }
                    statistics.framesComposed += 1
                } else {
                    statistics.framesSkipped += 1
                }
            }
            if writer.hasAudio {
                mix.update(repeating: 0, count: samplesPerTick)
                let position = ticks * Int64(samplesPerTick)
                for decoder in decoders { decoder.audio.mix(into: mix, count: samplesPerTick, at: position) }
                for index in 0..<samplesPerTick { pcm[index] = Int16(clamping: mix[index]) }
                try writer.writeAudio(pcm, count: samplesPerTick)
                statistics.audioSamples += samplesPerTick
            }
        } catch {
            fail(error.reason)
        }
    }

    /// Draws every stream's latest picture (or its placeholder) into its rectangle.
    private func paint(_ planes: CanvasPlanes) {
        let canvas = configuration.canvas
        planes.fill(LayoutRect(x: 0, y: 0, width: canvas.width, height: canvas.height), y: 16, u: 128, v: 128)
        let (placeholderY, placeholderU, placeholderV) = configuration.placeholderYUV
        for index in order where index < decoders.count && index < cells.count {
            let cell = cells[index]
            if let picture = decoders[index].picture {
                planes.draw(picture, into: cell.fitting(sourceWidth: picture.width, sourceHeight: picture.height))
            } else {
                planes.fill(cell, y: placeholderY, u: placeholderU, v: placeholderV)
            }
        }
    }

    func fail(_ reason: String) {
        guard failure == nil else { return }
        failure = reason
        writer?.close()
        writer = nil
        publish()
    }

    private func publish() {
        var merged = statistics
        for decoder in decoders {
            merged.streamFramesDecoded += decoder.framesDecoded
            merged.streamFramesDiscarded += decoder.framesDiscarded
            merged.streamAudioPackets += decoder.audioPacketsDecoded
            merged.audioSamplesDropped += decoder.audio.droppedSamples
            merged.droppedPackets += decoder.input.droppedPackets
        }
        let state: RecordingState = failure.map { .failed(reason: $0) } ?? .recording
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
        let final: RecordingState = failure.map { .failed(reason: $0) } ?? .finished
        published.withLock { $0.state = final }
        let duration = Int(ticks * 1000 / Int64(max(1, configuration.frameRate)))
        summary = CompositionSummary(path: configuration.path, size: size, durationMilliseconds: duration, state: final,
                                     statistics: published.withLock { $0.statistics })
    }
}
