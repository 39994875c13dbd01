import Foundation
import Glibc

/// The peer of `otbench archive`: `ffmpeg -protocol_whitelist file,udp,rtp -i clip.sdp -c copy
/// out.webm` receiving the clip's RTP over UDP loopback (paced at `speed` × real time so
/// the loopback drops nothing), stopped with SIGINT (it then writes its trailer) once the
/// last packet had time to arrive. Its CPU is the kernel's account of the child (`wait4`:
/// user + system of every ffmpeg thread, start-up and SDP probing included).
enum FFmpegRTPRemux {
    /// What one ffmpeg run cost and wrote.
    struct Outcome {
        var cpuNanoseconds: UInt64
        var videoPackets: Int
        var audioPackets: Int
        var fileBytes: Int
    }

    static func run(_ clip: ArchiveClip, ffmpeg: String, ffprobe: String, directory: String, speed: Double) throws -> Outcome {
        // Even ports, the next odd one free for RTCP; video and audio 2 apart.
        let base = 30_000 + Int(getpid() % 5_000) * 4
        let (videoPort, audioPort) = (base, base + 2)
        let sdpPath = directory + "/clip.sdp", output = directory + "/ffmpeg.webm", errorPath = directory + "/ffmpeg.err"
        try clip.sdp(videoPort: videoPort, audioPort: audioPort).write(toFile: sdpPath, atomically: true, encoding: .utf8)
        unlink(output)
        let arguments = [ffmpeg, "-nostdin", "-v", "error", "-protocol_whitelist", "file,udp,rtp", "-buffer_size", "4194304",
                         "-reorder_queue_size", "0", "-i", sdpPath, "-c", "copy", "-y", output]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, ffmpeg, &actions, nil, argv, environ)
        guard status == 0 else { throw ScenarioError("archive: cannot start ffmpeg: \(String(cString: strerror(status)))") }
        var reaped = false
        defer { if !reaped { kill(pid, SIGKILL); var ignored: Int32 = 0; waitpid(pid, &ignored, 0) } }

        // Wait (up to 30 s) until ffmpeg has bound both ports, then send.
        var bound = false
        for _ in 0..<3_000 where !bound {
            bound = isBound(videoPort) && isBound(audioPort)
            if !bound { usleep(10_000) }
        }
        guard bound else { throw ScenarioError("archive: ffmpeg did not bind its RTP ports: \(tail(errorPath))") }
        try send(clip, videoPort: videoPort, audioPort: audioPort, speed: speed)
        sleepMilliseconds(1_000)  // let ffmpeg take what the socket holds before the stop
        kill(pid, SIGINT)
        var waitStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &waitStatus, 0, &usage) < 0 {
            guard errno == EINTR else { throw ScenarioError("archive: wait4 ffmpeg: \(String(cString: strerror(errno)))") }
        }
        reaped = true
        let cpu = (UInt64(usage.ru_utime.tv_sec) + UInt64(usage.ru_stime.tv_sec)) * 1_000_000_000
            + (UInt64(usage.ru_utime.tv_usec) + UInt64(usage.ru_stime.tv_usec)) * 1000
        var info = stat()
        guard stat(output, &info) == 0, info.st_size > 0 else {
            throw ScenarioError("archive: ffmpeg wrote no file (status \(waitStatus)): \(tail(errorPath))")
        }
        return Outcome(cpuNanoseconds: cpu, videoPackets: try count(ffprobe, output, "v"), audioPackets: try count(ffprobe, output, "a"),
                       fileBytes: Int(info.st_size))
    }

    /// Sends every RTP packet of `clip` to the ports at `speed` × its media time.
    private static func send(_ clip: ArchiveClip, videoPort: Int, audioPort: Int, speed: Double) throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw ScenarioError("archive: socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        func address(_ port: Int) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            return address
        }
        let video = address(videoPort), audio = address(audioPort)
        let start = MonotonicNanoseconds.now()
        for packet in clip.packets where packet.report == nil {
            let due = start + UInt64(Double(packet.mediaNanoseconds) / speed)
            let now = MonotonicNanoseconds.now()
            if due > now + 1_000_000 { usleep(UInt32((due - now) / 1_000)) }
            let sent = packet.bytes.withUnsafeBytes { bytes in
                withUnsafePointer(to: packet.video ? video : audio) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            guard sent == packet.bytes.count else { throw ScenarioError("archive: sendto: \(String(cString: strerror(errno)))") }
        }
    }

    /// Whether a UDP socket is bound to `port` on this host (/proc/net/udp).
    private static func isBound(_ port: Int) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8) else { return false }
        let needle = ":" + String(format: "%04X", port) + " "
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 1 && (fields[1] + " ").hasSuffix(needle)
        }
    }

    /// ffprobe's packet count of one track of `file`.
    private static func count(_ ffprobe: String, _ file: String, _ stream: String) throws -> Int {
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffprobe)
        process.arguments = ["-v", "error", "-select_streams", stream, "-count_packets", "-show_entries", "stream=nb_read_packets",
                             "-of", "csv=p=0", file]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    private static func tail(_ path: String) -> String {
        String(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(600))
    }
}

/// CLOCK_MONOTONIC in nanoseconds (for pacing, not for figures).
enum MonotonicNanoseconds {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
