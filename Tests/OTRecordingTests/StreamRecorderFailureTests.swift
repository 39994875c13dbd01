import Foundation
import Glibc
import OTMedia
import OTRecording
import OTTestSupport
import Synchronization
import Testing

/// A recorder that is killed, cannot write, or cannot keep up: what is left on disk, the
/// state it reports, and that the producer never waits.
@Suite("StreamRecorder failures")
struct StreamRecorderFailureTests {
    /// A recording process killed with SIGKILL leaves a file ffprobe reads up to within
    /// a second of when it died.
    @Test func killedProcessLeavesPlayableFile() throws {
        let dir = try scratchDirectory("killed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/stream.webm"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProbeBinary.path)
        process.arguments = [path, "30"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Wait for "recording" (the first keyframe is queued): elapsed time counts from there.
        var seen = Data()
        let handle = output.fileHandleForReading
        while !String(decoding: seen, as: UTF8.self).contains("recording") {
            let chunk = handle.availableData
            try #require(!chunk.isEmpty, "the probe ended before recording")
            seen.append(chunk)
        }
        let started = MonotonicClock.nanoseconds()
        MonotonicClock.sleep(until: started + 4_000_000_000)
        let elapsed = Double(MonotonicClock.nanoseconds() - started) / 1e9
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let probe = try MediaProbe.probe(path)
        #expect(MediaProbe.codecs(probe)["video"] == "vp8")
        let last = try MediaProbe.packets(path, stream: "v").last?.time ?? 0
        #expect(last >= elapsed - 1, "last video packet at \(last) s after \(elapsed) s of recording")
        let decode = try Subprocess.run(try MediaProbe.tool("ffmpeg"), ["-v", "error", "-i", path, "-fps_mode", "passthrough", "-enc_time_base:v", "-1", "-f", "null", "-"])
        #expect(decode.status == 0, "\(decode)")
    }

    /// A directory the recorder cannot write in: `failed` with the system's reason at once,
    /// and every later enqueue still returns at once. Root ignores permission bits, so as
    /// root the directory is a read-only tmpfs, or (where root may not mount) the recorder
    /// runs in the probe process as `nobody`.
    @Test func unwritableDirectoryFails() throws {
        let dir = try scratchDirectory("readonly")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let target = dir + "/ro"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        var mounted = false
        if getuid() == 0 {
            mounted = try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", target]).status == 0
        }
        if !mounted { chmod(target, 0o555) }
        defer {
            if mounted { _ = try? Subprocess.run("/bin/umount", [target]) } else { chmod(target, 0o755) }
        }
        if getuid() == 0 && !mounted {
            chmod(dir, 0o755)
            let result = try Subprocess.run(ProbeBinary.path, [target + "/stream.webm", "1"],
                                            environment: ["OTRECORDING_PROBE_UID": "65534"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("done failed"), "\(result)")
            #expect(result.stdout.contains("Permission denied"), "\(result)")
            #expect(result.stdout.contains("refused=0"), "\(result)")
            return
        }
        let recorder = StreamRecorder(configuration: StreamRecorderConfiguration(path: target + "/stream.webm"))
        let publisher = try SyntheticAVPublisher()
        let log = try RecordingFeed(seed: 3).run(publisher, into: recorder, seconds: 1)
        let summary = recorder.finish()
        guard case .failed(let reason) = summary.state else {
            Issue.record("expected failed, got \(summary.state)")
            return
        }
        #expect(reason.contains("Read-only file system") || reason.contains("Permission denied"), "\(reason)")
        #expect(log.framesEncoded == 30)
        #expect(!recorder.needsKeyframe)
        #expect(summary.statistics.droppedQueueFull == 0)
        #expect(summary.statistics.processed == summary.statistics.enqueued)
    }

    /// A filesystem that fills up (a 256 KiB tmpfs where root may mount one; else a 64 KiB
    /// RLIMIT_FSIZE on the probe process): `failed` naming the cause, producer unaffected.
    @Test func fullDiskFails() throws {
        let dir = try scratchDirectory("full")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let target = dir + "/small"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        var mounted = false
        if getuid() == 0 {
            mounted = try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", target]).status == 0
        }
        defer { if mounted { _ = try? Subprocess.run("/bin/umount", [target]) } }
        if mounted {
            let recorder = StreamRecorder(configuration: StreamRecorderConfiguration(path: target + "/stream.webm"))
            let publisher = try SyntheticAVPublisher(bitrateKbps: 500)
            let log = try RecordingFeed(seed: 4).run(publisher, into: recorder, seconds: 8)
            let summary = recorder.finish()
            guard case .failed(let reason) = summary.state else {
                Issue.record("expected failed, got \(summary.state)")
                return
            }
            #expect(reason.contains("No space left on device"), "\(reason)")
            #expect(log.framesEncoded == 240)
            #expect(summary.statistics.droppedQueueFull == 0)
            #expect(summary.statistics.processed == summary.statistics.enqueued)
        } else {
            // dash's ulimit -f counts 512-byte blocks: 64 KiB, less than 6 s of the probe's stream.
            let result = try Subprocess.run("/bin/sh", ["-c", "ulimit -f 128; exec \"$0\" \"$1\" 6", ProbeBinary.path,
                                                        target + "/stream.webm"])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("done failed"), "\(result)")
            #expect(result.stdout.contains("File too large"), "\(result)")
            #expect(result.stdout.contains("refused=0"), "\(result)")
        }
    }

    /// A writer stalled in open(2) on a FIFO nobody reads: the queue fills, further
    /// packets are dropped and counted, and enqueue keeps returning at once.
    @Test func stalledWriterDropsAndCounts() throws {
        let dir = try scratchDirectory("stalled")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/stream.webm"
        #expect(mkfifo(path, 0o644) == 0)
        var configuration = StreamRecorderConfiguration(path: path)
        configuration.queueCapacity = 64
        let recorder = StreamRecorder(configuration: configuration)
        var packets: [[UInt8]] = []
        let publisher = try SyntheticAVPublisher()
        for _ in 0..<60 { try publisher.nextVideoFrame { packets.append(Array($0)) } }
        var accepted = 0, refused = 0
        for round in 0..<10 {
            for packet in packets {
                if packet.withUnsafeBytes({ recorder.enqueue(.video, rtp: $0, arrivalNanoseconds: UInt64(round)) }) {
                    accepted += 1
                } else {
                    refused += 1
                }
            }
        }
        // The writer took at most one entry before it blocked opening the FIFO.
        #expect(accepted <= 65)
        #expect(refused == packets.count * 10 - accepted)
        #expect(recorder.statistics.droppedQueueFull == refused)
        // Unblock the writer: hold the FIFO open for reading (the writer opens it more than
        // once) and drain it on another thread until the recorder has finished.
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        #expect(fd >= 0)
        let stop = StopSignal()
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !stop.isSet {
                if read(fd, &buffer, buffer.count) <= 0 { usleep(1000) }
            }
        }
        reader.start()
        defer {
            stop.set()
            usleep(20_000)
            close(fd)
        }
        let summary = recorder.finish()
        #expect(summary.statistics.droppedQueueFull == refused)
        #expect(summary.statistics.enqueued == accepted)
    }
}

/// A flag one thread sets and another polls.
final class StopSignal: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
