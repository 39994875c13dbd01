import Foundation
import Glibc
import OTMedia
import OTRecording

/// `otbench archive`'s composed rows: OTKit's `ArchiveComposer` composing four 640x480
/// VP8 + Opus streams into a 1280x720 `bestFit` MP4 (libvpx decode, libyuv box scaling,
/// libx264 `veryfast` at the composer's bitrate, Opus decode, mix, AAC) against an
/// `ffmpeg` filter graph doing the same work in the same run: the same four streams read
/// from WebM files (decoded with libvpx and libopus, as OTKit does), each scaled with an
/// area filter into the rectangle `LayoutMath` gives the composer, overlaid on a black
/// 1280x720 canvas, the four audio tracks mixed (`amix`), encoded with libx264 (same
/// preset, bitrate, GOP, no B-frames) and AAC (mono 48 kHz, 96 kbit/s) into fragmented MP4.
///
/// Both sides run on one thread of work: the composer's x264 is opened with one thread
/// (`ComposerConfiguration.encoderThreads`; libavcodec's libx264 wrapper would otherwise
/// pick x264's automatic count) and ffmpeg gets `-threads 1` on every decoder and the
/// encoder and one filter thread, so neither pays for or gains from threading. The same `ArchiveClip` packets
/// feed both: OTKit's four inputs get them in real time (the composer runs on the wall
/// clock, as behind a live session); ffmpeg reads WebM files made from them beforehand by
/// a `StreamRecorder` (not timed) and runs as fast as it can.
///
/// OTKit's CPU: the process's CPU clock from creating the composer to `finish` returning,
/// less the pacing thread's, plus that thread's time inside `enqueue` and `finish`.
/// ffmpeg's: `wait4`'s rusage of the child (start-up included; small beside 20 s of
/// four decodes and an encode). Both files must hold every frame (checked), and their
/// x264 settings (the SEI libx264 writes) must be the same. The composer, on the wall
/// clock, may fall behind it on a loaded machine: it is set to compose every frame anyway
/// (`lateFramesBeforeSkipping`), catching up at `finish`; how far behind it fell is printed
/// as a row, and a run where over 1 % of the streams' decoded audio found no place on the
/// timeline is refused.
enum ArchiveComposedComparison {
    static let streams = 4
    static let canvas = CanvasResolution(width: 1280, height: 720)

    /// Runs both sides `runs` times (alternating, the first flipping each run) over `clip`
    /// and returns the ratio row and the realtime-factor row.
    static func run(clip: ArchiveClip, runs: Int, ffmpeg: String, ffprobe: String, directory: String,
                    log: ProgressLog) throws -> [BenchResult] {
        let input = directory + "/composed-input.webm"
        try writeInput(clip, path: input)
        let bitrate = configuration(path: "").effectiveVideoBitrate
        let graph = filterGraph(seconds: clip.seconds)
        var otkit: [Double] = [], peer: [Double] = []
        for run in 0..<runs {
            for side in 0..<2 {
                if (side == 0) == (run % 2 == 0) {
                    otkit.append(Double(try composeWithOTKit(clip, path: directory + "/otkit.mp4")) / 1e9)
                } else {
                    peer.append(Double(try composeWithFFmpeg(clip, input: input, graph: graph, bitrate: bitrate, ffmpeg: ffmpeg,
                                                             ffprobe: ffprobe, path: directory + "/ffmpeg.mp4")) / 1e9)
                }
            }
            let settings = try x264Settings(directory + "/otkit.mp4")
            let peerSettings = try x264Settings(directory + "/ffmpeg.mp4")
            guard settings == peerSettings else {
                throw ScenarioError("archive composed: the two files' x264 settings differ — OTKit: \(settings); ffmpeg: \(peerSettings)")
            }
            if run == 0 { log("  archive composed: both x264 streams carry the settings \(settings)") }
            log("  archive composed run \(run + 1)/\(runs): OTKit \(TableReport.format(otkit.last!)) s CPU, "
                + "ffmpeg \(TableReport.format(peer.last!)) s CPU for \(TableReport.format(clip.seconds)) s of media; "
                + "composer at most \(lastLateFrames) frames behind real time")
        }
        let value = median(otkit.sorted())
        let label = "archive composed 4 × 640x480 → 1280x720 30 fps (VP8 decode, layout, x264 veryfast "
            + "\(bitrate / 1000) kbit/s, AAC)"
        return [
            .compared("\(label) CPU vs ffmpeg filter graph", value: value, unit: "s CPU",
                      baseline: median(peer.sorted()), goal: 1.0),
            .info("archive composer realtime factor on one core (media s per CPU s)", value: clip.seconds / value, unit: "×"),
            .info("archive composer most output frames behind real time (composed later, none skipped)",
                  value: Double(maximumLateFrames), unit: "frames"),
        ]
    }

    static func configuration(path: String) -> ComposerConfiguration {
        var configuration = ComposerConfiguration(path: path)
        configuration.canvas = canvas
        configuration.layout = CompositionLayout(.bestFit)
        // ffmpeg's x264 gets `-threads 1`; so does the composer's (the router leaves x264 its
        // own count): the x264 settings both files carry are compared after each run.
        configuration.encoderThreads = 1
        // The composer may fall behind the wall clock on a loaded machine: it composes every
        // frame all the same (catching up at `finish`) instead of skipping some, so both sides
        // do the same work; a deep ring keeps every packet meanwhile (a dropped one would
        // make it decode less than ffmpeg).
        configuration.lateFramesBeforeSkipping = 40 * ArchiveClip.frameRate
        configuration.queueCapacity = 8_192
        return configuration
    }

    /// The clip as a WebM (VP8 + mono Opus) for ffmpeg, written by a `StreamRecorder` fed
    /// as fast as its queue takes the packets. Throws unless every frame and packet is in it.
    private static func writeInput(_ clip: ArchiveClip, path: String) throws {
        unlink(path)
        var settings = StreamRecorderConfiguration(path: path)
        settings.audioChannels = 1
        let recorder = StreamRecorder(configuration: settings)
        let start = MonotonicClock.nanoseconds()
        for packet in clip.packets {
            let arrival = start + packet.mediaNanoseconds
            var attempts = 0
            while true {
                let taken: Bool
                if let report = packet.report {
                    taken = recorder.enqueueSenderReport(packet.video ? .video : .audio, ntpTimestamp: report.ntp,
                                                         rtpTimestamp: report.rtp, arrivalNanoseconds: arrival)
                } else {
                    taken = packet.bytes.withUnsafeBytes { recorder.enqueue(packet.video ? .video : .audio, rtp: $0, arrivalNanoseconds: arrival) }
                }
                if taken { break }
                attempts += 1
                guard attempts < 5_000 else { throw ScenarioError("archive composed: the input recorder's queue stayed full") }
                usleep(1_000)
            }
        }
        let summary = recorder.finish()
        guard summary.state == .finished, summary.statistics.videoFramesWritten == clip.videoFrames,
              summary.statistics.audioPacketsWritten == clip.audioPackets else {
            throw ScenarioError("archive composed: the input WebM has \(summary.statistics.videoFramesWritten)/\(clip.videoFrames) "
                                + "frames and \(summary.statistics.audioPacketsWritten)/\(clip.audioPackets) audio packets")
        }
    }

    /// ffmpeg's `-filter_complex`: the composer's `bestFit` rectangles for four 640x480
    /// streams on the canvas (from `LayoutMath`, so both draw the same picture).
    static func filterGraph(seconds: Double) -> String {
        let cells = LayoutMath.cells(for: Array(repeating: LayoutStream(), count: streams), layout: CompositionLayout(.bestFit),
                                     canvas: canvas)
        var parts = ["color=c=black:s=\(canvas.width)x\(canvas.height):r=\(ArchiveClip.frameRate):d=\(seconds)[c0]"]
        for (index, cell) in cells.enumerated() {
            let rect = cell.fitting(sourceWidth: ArchiveClip.width, sourceHeight: ArchiveClip.height)
            parts.append("[\(index):v]scale=\(rect.width):\(rect.height):flags=area[s\(index)]")
            let output = index == cells.count - 1 ? "v" : "c\(index + 1)"
            parts.append("[c\(index)][s\(index)]overlay=x=\(rect.x):y=\(rect.y):eof_action=pass:format=yuv420[\(output)]")
        }
        parts.append((0..<streams).map { "[\($0):a]" }.joined() + "amix=inputs=\(streams):normalize=0[a]")
        return parts.joined(separator: ";")
    }

    /// One ffmpeg run: CPU in ns. Throws on failure or a file short of frames.
    private static func composeWithFFmpeg(_ clip: ArchiveClip, input: String, graph: String, bitrate: Int, ffmpeg: String,
                                          ffprobe: String, path: String) throws -> UInt64 {
        unlink(path)
        var arguments = ["-hide_banner", "-nostdin", "-y", "-filter_threads", "1", "-filter_complex_threads", "1"]
        for _ in 0..<streams { arguments += ["-threads", "1", "-c:v", "libvpx", "-c:a", "libopus", "-i", input] }
        arguments += ["-filter_complex", graph, "-map", "[v]", "-map", "[a]", "-frames:v", "\(clip.videoFrames)",
                      "-c:v", "libx264", "-preset", "veryfast", "-b:v", "\(bitrate)", "-g", "\(ArchiveClip.frameRate)",
                      "-bf", "0", "-threads", "1", "-pix_fmt", "yuv420p",
                      "-c:a", "aac", "-b:a", "96k", "-ac", "1", "-ar", "48000",
                      "-movflags", "frag_keyframe+empty_moov+default_base_moof", "-f", "mp4", path]
        let outcome = try ChildProcess.run(ffmpeg, arguments)
        guard outcome.status == 0 else { throw ScenarioError("archive composed: ffmpeg exited \(outcome.status): \(outcome.errorText)") }
        let frames = try countVideoPackets(path, ffprobe: ffprobe)
        guard frames == clip.videoFrames else {
            throw ScenarioError("archive composed: ffmpeg wrote \(frames)/\(clip.videoFrames) frames")
        }
        return outcome.cpuNanoseconds
    }

    /// The encoder settings libx264 writes into its first SEI message ("x264 - core … -
    /// H.264/MPEG-4 AVC codec - … - options: cabac=1 ref=1 … threads=1 …"): the `options:`
    /// part of `path`'s, so the two sides' encoders are shown to be set up alike. Throws if
    /// the first megabyte holds none.
    static func x264Settings(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ScenarioError("archive composed: cannot read \(path)") }
        defer { try? handle.close() }
        let head = [UInt8](handle.readData(ofLength: 1 << 20))
        let marker = Array("options: ".utf8)
        guard let start = head.indices.dropLast(marker.count).first(where: { head[$0..<($0 + marker.count)].elementsEqual(marker) }) else {
            throw ScenarioError("archive composed: no x264 settings in \(path)")
        }
        let from = start + marker.count
        let end = head[from...].firstIndex(where: { $0 < 0x20 || $0 > 0x7e }) ?? head.endIndex
        return String(decoding: head[from..<end], as: UTF8.self)
    }

    /// The H.264 packets in `path` (ffprobe counting them).
    private static func countVideoPackets(_ path: String, ffprobe: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = ["-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                             "stream=nb_read_packets", "-of", "csv=p=0", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else { throw ScenarioError("archive composed: ffprobe could not count \(path): \(text)") }
        return count
    }

    /// Composes `clip` × 4 with an `ArchiveComposer`, the packets handed to its four inputs
    /// in real time. Returns the CPU it took, in ns (see the type's comment). Throws unless
    /// every frame was composed (none skipped) and every stream frame decoded.
    private static func composeWithOTKit(_ clip: ArchiveClip, path: String) throws -> UInt64 {
        unlink(path)
        let thread = CPUClock.clock(of: pthread_self())
        let processBefore = CPUClock.process(), threadBefore = CPUClock.read(thread)
        var enqueueTime: UInt64 = 0
        let composer = ArchiveComposer(configuration: configuration(path: path))
        let inputs = (0..<streams).map { composer.addStream("stream-\($0)") }
        let start = MonotonicClock.nanoseconds()
        var index = 0
        while index < clip.packets.count {
            let instant = clip.packets[index].mediaNanoseconds
            let due = start + instant
            let now = MonotonicClock.nanoseconds()
            if due > now + 1_000_000 { usleep(UInt32((due - now) / 1_000)) }
            let before = CPUClock.read(thread)
            while index < clip.packets.count, clip.packets[index].mediaNanoseconds == instant {
                let packet = clip.packets[index]
                if packet.report == nil {
                    let arrival = start + packet.mediaNanoseconds
                    for input in inputs {
                        let taken = packet.bytes.withUnsafeBytes { input.enqueue(packet.video ? .video : .audio, rtp: $0, arrivalNanoseconds: arrival) }
                        guard taken else { throw ScenarioError("archive composed: a composer input dropped a packet") }
                    }
                }
                index += 1
            }
            enqueueTime += CPUClock.read(thread) - before
        }
        let finishStart = CPUClock.read(thread)
        let summary = composer.finish(at: start + UInt64(clip.videoFrames) * 1_000_000_000 / UInt64(ArchiveClip.frameRate))
        enqueueTime += CPUClock.read(thread) - finishStart
        let processTime = CPUClock.process() - processBefore
        let threadTime = CPUClock.read(thread) - threadBefore
        let statistics = summary.statistics
        // (A frame more than ffmpeg's 600 may be composed when the pacing thread started after
        // the composer: charged to OTKit.)
        guard summary.state == .finished, statistics.framesComposed >= clip.videoFrames, statistics.framesSkipped == 0 else {
            throw ScenarioError("archive composed: OTKit composed \(statistics.framesComposed)/\(clip.videoFrames) frames, "
                                + "skipped \(statistics.framesSkipped) (\(summary.state))")
        }
        guard statistics.streamFramesDecoded >= streams * (clip.videoFrames - 1) else {
            throw ScenarioError("archive composed: OTKit decoded \(statistics.streamFramesDecoded) of \(streams * clip.videoFrames) stream frames")
        }
        // Decoded audio with no place on the timeline (it came after its instant was mixed:
        // the pacing thread itself late on a busy machine) leaves the mix that much quieter.
        // Over 1 % of the streams' audio, such a run is refused.
        let decodedSamples = streams * clip.audioPackets * 960
        guard statistics.audioSamplesDropped * 100 <= decodedSamples else {
            throw ScenarioError("archive composed: the composer fell \(statistics.maximumLateFrames) frames behind and dropped "
                                + "\(statistics.audioSamplesDropped) audio samples; a busy machine: run again")
        }
        lastLateFrames = statistics.maximumLateFrames
        maximumLateFrames = max(maximumLateFrames, statistics.maximumLateFrames)
        return processTime - min(processTime, threadTime) + enqueueTime
    }

    /// The most output frames the composer fell behind real time in the last run.
    nonisolated(unsafe) static var lastLateFrames = 0
    /// The most output frames the composer fell behind real time over every run.
    nonisolated(unsafe) static var maximumLateFrames = 0
}
