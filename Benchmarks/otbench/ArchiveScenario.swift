import Foundation
import Glibc
import OTMedia
import OTRecording

/// `otbench archive`: the CPU an individual archive spends per recorded stream — OTKit's
/// `StreamRecorder` (the router's recorder: queue, reorder window, VP8 reassembly, A/V
/// timeline, libavformat WebM) — against `ffmpeg -c copy` remuxing the same RTP into WebM,
/// in the same run.
///
/// Pinned: the same packets (`ArchiveClip`: 640x480 30 fps VP8 at about 1 Mbit/s with a
/// keyframe every 2 s, 20 ms mono Opus, encoded once before timing), the same media
/// duration (`--frames`, default 600 = 20 s), both writing WebM to the same directory
/// (/dev/shm when it exists: the disk is not what is measured), the same schedule (each
/// packet handed over in real time, as a live stream arrives).
/// Each side must write every frame and packet (checked; a run where ffmpeg lost packets
/// on the loopback stops the scenario). OTKit's side: the process's CPU from creating the
/// recorder to `finish()` returning, less the pacing thread's own, plus that thread's time
/// in `enqueue` and `finish` (the recorder's writer thread, the producer's copies, the
/// trailer). ffmpeg's side: `wait4`'s rusage of the child (its start,
/// SDP probing and socket reads included — reading RTP from a socket is part of what it
/// does; the router's recorder gets its packets from the forwarding path instead), fed
/// over UDP loopback in real time. Two rows: the whole run, and with each side's fixed
/// cost removed (the same measurement over a 2 s clip subtracted: ffmpeg's start-up and
/// SDP probing, the recorder's thread and muxer set-up). Sides alternate, the first
/// flipping each run; medians over `--runs` (default 3). Goal: ratio ≤ 1.0 on both.
///
/// Then the composed rows (`ArchiveComposedComparison`): four copies of the same clip
/// composed into a 1280x720 `bestFit` MP4 by OTKit's `ArchiveComposer` against an ffmpeg
/// filter graph doing the same layout, decode and encode; goal ratio ≤ 1.0; and the
/// composer's realtime factor on one core. `--only individual` or `--only composed` runs one half.
enum ArchiveScenario: Scenario {
    static let name = "archive"
    static let summary = "CPU per recorded individual stream (StreamRecorder → WebM) vs ffmpeg remuxing the same RTP into WebM; "
        + "composing 4 × 640x480 into 1280x720 H.264 + AAC (ArchiveComposer) vs an ffmpeg filter graph"

    static let defaultFrames = 600
    static let defaultRuns = 3
    static let ffmpegSpeed = 1.0

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        guard let ffmpeg = ChildProcess.find("ffmpeg"), let ffprobe = ChildProcess.find("ffprobe") else {
            throw ScenarioError("archive: ffmpeg and ffprobe are required (scripts/install-deps.sh installs them)")
        }
        let frames = max(60, options.frames ?? defaultFrames)
        let runs = max(1, options.runs ?? defaultRuns)
        let directory = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()) + "/otbench-archive-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        log("archive: encoding \(frames) frames of 640x480 VP8 and \(frames * 50 / 30) Opus packets once")
        let clip = try ArchiveClip.make(frames: frames)
        let mbps = Double(clip.bytes) * 8 / clip.seconds / 1e6
        let wantsIndividual = options.only.map { "individual".contains($0) } ?? true
        let wantsComposed = options.only.map { "composed".contains($0) } ?? true
        var composed: [BenchResult] = []
        if wantsComposed {
            log("archive: composing 4 × \(TableReport.format(clip.seconds)) s (OTKit in real time, ffmpeg as fast as it can)")
            composed = try ArchiveComposedComparison.run(clip: clip, runs: runs, ffmpeg: ffmpeg, ffprobe: ffprobe,
                                                         directory: directory, log: log)
        }
        guard wantsIndividual else { return composed }
        log("archive: \(clip.videoPackets) VP8 + \(clip.audioPackets) Opus RTP packets, \(TableReport.format(mbps)) Mbit/s, "
            + "\(TableReport.format(clip.seconds)) s of media")

        // A 2 s clip of the same stream measures each side's fixed cost (ffmpeg's start-up
        // and probing, the recorder's thread and muxer), so the marginal rows compare the
        // per-second work alone.
        let short = try ArchiveClip.make(frames: shortFrames)
        var otkit: [Double] = [], peer: [Double] = [], otkitMarginal: [Double] = [], peerMarginal: [Double] = []
        let span = clip.seconds - short.seconds
        for run in 0..<runs {
            for side in 0..<2 {
                if (side == 0) == (run % 2 == 0) {
                    let full = try recordWithOTKit(clip, path: directory + "/otkit.webm")
                    let fixed = try recordWithOTKit(short, path: directory + "/otkit.webm")
                    otkit.append(Double(full) / 1e6 / clip.seconds)
                    otkitMarginal.append(max(0, Double(full) - Double(fixed)) / 1e6 / span)
                } else {
                    let full = try ffmpegCPU(clip, ffmpeg: ffmpeg, ffprobe: ffprobe, directory: directory)
                    let fixed = try ffmpegCPU(short, ffmpeg: ffmpeg, ffprobe: ffprobe, directory: directory)
                    peer.append(Double(full) / 1e6 / clip.seconds)
                    peerMarginal.append(max(0, Double(full) - Double(fixed)) / 1e6 / span)
                }
            }
            log("  archive run \(run + 1)/\(runs): whole run OTKit \(TableReport.format(otkit.last!)) ffmpeg \(TableReport.format(peer.last!)); "
                + "marginal OTKit \(TableReport.format(otkitMarginal.last!)) ffmpeg \(TableReport.format(peerMarginal.last!)) ms CPU per s of media")
        }
        let label = "archive individual stream (VP8 640x480 \(TableReport.format(mbps)) Mbit/s + Opus)"
        let value = median(otkit.sorted())
        return [
            .compared("\(label) CPU vs ffmpeg -c copy, whole run", value: value, unit: "ms CPU/s media",
                      baseline: median(peer.sorted()), goal: 1.0),
            .compared("\(label) CPU vs ffmpeg -c copy, start-up removed", value: median(otkitMarginal.sorted()),
                      unit: "ms CPU/s media", baseline: median(peerMarginal.sorted()), goal: 1.0),
            .info("archive individual stream: share of one core per recorded stream (whole run)", value: value / 10, unit: "%"),
        ] + composed
    }

    static let shortFrames = 60

    /// One ffmpeg run over `clip`: its CPU in ns. Throws when it lost packets.
    private static func ffmpegCPU(_ clip: ArchiveClip, ffmpeg: String, ffprobe: String, directory: String) throws -> UInt64 {
        let outcome = try FFmpegRTPRemux.run(clip, ffmpeg: ffmpeg, ffprobe: ffprobe, directory: directory, speed: ffmpegSpeed)
        guard outcome.videoPackets >= clip.videoFrames, outcome.audioPackets >= clip.audioPackets else {
            throw ScenarioError("archive: ffmpeg wrote \(outcome.videoPackets)/\(clip.videoFrames) video and "
                                + "\(outcome.audioPackets)/\(clip.audioPackets) audio packets: it lost RTP on the "
                                + "loopback (a busy machine); run again")
        }
        return outcome.cpuNanoseconds
    }

    /// Records `clip` with a `StreamRecorder`, the packets handed over on the schedule the
    /// ffmpeg side gets them (`ffmpegSpeed` × media time), so the writer thread wakes as it
    /// does behind a live stream. Returns the CPU it took, in ns: the whole process's CPU
    /// clock from creating the recorder to `finish()` returning, minus this (pacing)
    /// thread's, plus this thread's time inside the `enqueue` calls (the producer's copies, timed
    /// per instant with one pair of clock reads, counted against OTKit). Throws unless every frame
    /// and packet was written.
    private static func recordWithOTKit(_ clip: ArchiveClip, path: String) throws -> UInt64 {
        unlink(path)
        let thread = CPUClock.clock(of: pthread_self())
        let processBefore = CPUClock.process(), threadBefore = CPUClock.read(thread)
        var enqueueTime: UInt64 = 0
        var configuration = StreamRecorderConfiguration(path: path)
        configuration.audioChannels = 1
        let recorder = StreamRecorder(configuration: configuration)
        let start = MonotonicClock.nanoseconds()
        let paceStart = MonotonicNanoseconds.now()
        // The packets of one instant (a frame's, or an SR with its packet) go in one burst,
        // timed by one pair of clock reads.
        var index = 0
        while index < clip.packets.count {
            let instant = clip.packets[index].mediaNanoseconds
            let due = paceStart + UInt64(Double(instant) / ffmpegSpeed)
            let now = MonotonicNanoseconds.now()
            if due > now + 1_000_000 { usleep(UInt32((due - now) / 1_000)) }
            let before = CPUClock.read(thread)
            while index < clip.packets.count, clip.packets[index].mediaNanoseconds == instant {
                let packet = clip.packets[index]
                let arrival = start + packet.mediaNanoseconds
                let taken: Bool
                if let report = packet.report {
                    taken = recorder.enqueueSenderReport(packet.video ? .video : .audio, ntpTimestamp: report.ntp,
                                                         rtpTimestamp: report.rtp, arrivalNanoseconds: arrival)
                } else {
                    taken = packet.bytes.withUnsafeBytes { recorder.enqueue(packet.video ? .video : .audio, rtp: $0, arrivalNanoseconds: arrival) }
                }
                guard taken else { throw ScenarioError("archive: the recorder's queue dropped a packet") }
                index += 1
            }
            enqueueTime += CPUClock.read(thread) - before
        }
        let finishStart = CPUClock.read(thread)
        let summary = recorder.finish()
        // finish() runs on this thread: its work (joining, the trailer's wait) counts.
        enqueueTime += CPUClock.read(thread) - finishStart
        let processTime = CPUClock.process() - processBefore
        let threadTime = CPUClock.read(thread) - threadBefore
        guard summary.state == .finished, summary.statistics.videoFramesWritten == clip.videoFrames,
              summary.statistics.audioPacketsWritten == clip.audioPackets else {
            throw ScenarioError("archive: OTKit wrote \(summary.statistics.videoFramesWritten)/\(clip.videoFrames) frames and "
                                + "\(summary.statistics.audioPacketsWritten)/\(clip.audioPackets) audio packets (\(summary.state))")
        }
        return processTime - min(processTime, threadTime) + enqueueTime
    }
}
