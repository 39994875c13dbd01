import Glibc
import OTMedia

/// OTKit's publisher pipeline against a GStreamer pipeline doing the same job on the
/// same frames: raw I420 → vp8enc (the same settings) → rtpvp8pay → srtpenc (GCM) →
/// udpsink to the same `PacketSink`.
///
/// Equal work, pinned: the same 900 frames; vp8enc with OTKit's libvpx settings and
/// timestamps, proven before timing by identical bitstreams (`GStreamerSettingsCheck`);
/// the same 500 kbps, no adaptation on OTKit's side (`PublisherPipelineComparison`);
/// RTP payloads (descriptor + VP8 data) of at most `VP8Packetizer.defaultMaxPayloadSize`
/// bytes on both sides (rtpvp8pay's `mtu` counts the 12-byte RTP header too); SRTP
/// AEAD_AES_128_GCM with the same key; one UDP socket each to the same sink.
///
/// Method: the pre-rendered frames are written round-robin to a raw I420 file (900
/// frames, the same sequence OTKit's source hands out). GStreamer's figure is the CPU of
/// the whole `gst-launch-1.0` process (`wait4` rusage, user + system) divided by the
/// frames; OTKit's is the process CPU (minus the sink's drain thread) from before the
/// `PublisherPipeline` is created until after it has stopped, divided by the frames:
/// both include their set-up and tear-down. The verdict subtracts from GStreamer's figure
/// what OTKit's does not pay, measured in the same run: its bare process start-up
/// (`fakesrc num-buffers=1 ! fakesink`, per launch, spread over the frames) and its source
/// (`filesrc ! rawvideoparse ! fakesink` less that launch's own start-up, per frame;
/// OTKit's source is in memory). Both are
/// also reported as rows of their own, and the unsubtracted ratio as information.
///
/// Statistic: runs alternate (OTKit first on even runs), and the verdict's ratio is the
/// median of the per-run paired ratios (OTKit / GStreamer net, the two measured back to
/// back), not the ratio of the two medians: on the shared 2-core machine a single run's
/// CPU per frame drifts ±15 % with the host's load over seconds, and pairing cancels the
/// drift both sides of a pair see. The value and baseline columns stay the medians.
struct GStreamerComparison {
    let publisher: PublisherPipelineComparison
    /// Frames per run on both sides (enough that start-up is a small share).
    static let frames = 900
    /// Every element the pipelines here use.
    static let elements = ["filesrc", "rawvideoparse", "vp8enc", "rtpvp8pay", "srtpenc", "udpsink", "fakesrc", "fakesink",
                           "filesink"]
    /// rtpvp8pay's `mtu` (whole RTP packet, header included): the 12-byte header plus
    /// OTKit's payload budget, so both sides cut frames into payloads of the same size.
    static let mtu = RTPHeader.fixedSize + VP8Packetizer.defaultMaxPayloadSize

    /// Why GStreamer cannot run here (a missing program or element), or nil.
    static func unavailableReason() -> String? {
        guard ChildProcess.find("gst-launch-1.0") != nil else {
            return "gst-launch-1.0 is not installed (apt-get install gstreamer1.0-tools)"
        }
        guard let inspect = ChildProcess.find("gst-inspect-1.0") else {
            return "gst-inspect-1.0 is not installed (apt-get install gstreamer1.0-tools)"
        }
        let missing = elements.filter { element in
            ((try? ChildProcess.run(inspect, ["--exists", element]))?.status ?? 1) != 0
        }
        guard missing.isEmpty else {
            return "GStreamer elements missing: \(missing.joined(separator: ", ")) (apt-get install "
                + "gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad)"
        }
        return nil
    }

    /// vp8enc with WebRTC's realtime settings, which are `VP8EncoderSettings`'s
    /// (WebRTC's) as the bare loop uses them, plus `error-resilient=default` as OTKit sets,
    /// and libvpx's 10 MHz timebase, in which each 33,333,333 ns frame lasts exactly what
    /// OTKit's 3000 ticks of 90 kHz do (vp8enc's default 1/90000 floors it to 2999 ticks:
    /// 30.01 fps for libvpx's rate control, a different bitstream).
    var encoder: String {
        let s = publisher.codec.settings
        return "vp8enc deadline=1 timebase=1/10000000 cpu-used=\(s.cpuUsed) end-usage=cbr threads=\(s.threads) lag-in-frames=0 "
            + "min-quantizer=2 max-quantizer=56 undershoot=100 overshoot=15 buffer-initial-size=500 "
            + "buffer-optimal-size=600 buffer-size=1000 static-threshold=1 token-partitions=0 "
            + "max-intra-bitrate=900 keyframe-max-dist=\(s.maxKeyframeInterval) dropframe-threshold=0 "
            + "error-resilient=default target-bitrate=\(s.bitrateKbps * 1000)"
    }

    /// `encoder` as gst-launch tokens.
    var encoderTokens: [String] { encoder.split(separator: " ").map(String.init) }

    /// The source's gst-launch tokens: the raw I420 file at 640x480, 30 fps.
    func source(file: String) -> [String] {
        let s = publisher.codec.settings
        return "filesrc location=\(file) ! rawvideoparse width=\(s.width) height=\(s.height) format=i420 framerate=30/1"
            .split(separator: " ").map(String.init)
    }

    /// The publishing pipeline's gst-launch tokens.
    func publishing(file: String, port: UInt16, keyHex: String) -> [String] {
        let text = " ! rtpvp8pay pt=96 mtu=\(Self.mtu) picture-id-mode=15-bit ! "
            + "srtpenc key=\(keyHex) rtp-cipher=aes-128-gcm rtp-auth=null rtcp-cipher=aes-128-gcm rtcp-auth=null ! "
            + "udpsink host=127.0.0.1 port=\(port) sync=false async=false"
        return source(file: file) + ["!"] + encoderTokens + text.split(separator: " ").map(String.init)
    }

    func run(frames: [VideoFrame], runs: Int, sink: PacketSink, log: ProgressLog) throws -> [BenchResult] {
        let label = publisher.label
        if let reason = Self.unavailableReason() {
            log("\(label) vs GStreamer: SKIPPED: \(reason)")
            return []
        }
        let launch = ChildProcess.find("gst-launch-1.0")!
        let file = "/tmp/otbench-frames-\(getpid()).i420"
        defer { unlink(file) }
        log("\(label) vs GStreamer: writing \(Self.frames) frames to \(file)")
        try RawI420File.write(frames: frames, count: Self.frames, to: file)
        let keyHex = try PublisherPipelineComparison.keyMaterial.keyAndSalt.map { hex($0) }.joined()
        let publishing = publishing(file: file, port: sink.address.port, keyHex: keyHex)
        let sourceOnly = source(file: file) + ["!", "fakesink"]
        let startup = ["fakesrc", "num-buffers=1", "!", "fakesink"]
        log("  gst-launch-1.0 -q \(publishing.joined(separator: " "))")

        func gst(_ arguments: [String]) throws -> UInt64 {
            let outcome = try ChildProcess.run(launch, ["-q"] + arguments)
            guard outcome.status == 0 else {
                throw ScenarioError("gst-launch-1.0 \(arguments.joined(separator: " ")) exited with \(outcome.status): \(outcome.errorText)")
            }
            return outcome.cpuNanoseconds
        }
        // Untimed: the plugin registry, the file's pages, both publishers' code (OTKit's
        // first pipeline in the process paid ~70 ms of one-time set-up, libsrtp's and
        // libvpx's first use, which GStreamer's warm-up runs pay in their own processes).
        _ = try gst(startup)
        _ = try gst(sourceOnly)
        _ = try publisher.runOTKit(frames: frames, total: PublisherPipelineComparison.warmUp + 10,
                                   warmUp: PublisherPipelineComparison.warmUp, sink: sink)
        let check = try GStreamerSettingsCheck.run(comparison: self, file: file, frames: frames, count: Self.frames) {
            _ = try gst($0)
        }
        if check.identical {
            log("  settings check: GStreamer's vp8enc and the bare libvpx loop with OTKit's settings wrote identical "
                + "bitstreams (\(check.gstreamerBytes) bytes for \(Self.frames) frames)")
        } else {
            log("  settings check FAILED: GStreamer's vp8enc wrote \(check.gstreamerBytes) bytes, the bare libvpx loop with "
                + "OTKit's settings \(check.bareBytes) (digests differ): the two sides do not encode alike")
        }

        var otkitMs: [Double] = [], gstMs: [Double] = [], startupMs: [Double] = [], sourceMs: [Double] = []
        var gstNetMs: [Double] = [], pairedRatios: [Double] = []
        let perFrame = { (ns: UInt64) in Double(ns) / 1e6 / Double(Self.frames) }
        for run in 0..<runs {
            var o = 0.0, g = 0.0
            for side in 0..<2 {
                if (side == 0) == (run % 2 == 0) {
                    let result = try publisher.runOTKit(frames: frames, total: Self.frames, warmUp: 0, sink: sink)
                    o = perFrame(result.lifeStart.cpu(until: result.lifeEnd))
                    // Where it went: set-up (creation, start, threads) before frame 0, the
                    // frames (the capture thread's share of them), tear-down after.
                    let setUp = Double(result.lifeStart.cpu(until: result.windowStart)) / 1e6
                    let steady = perFrame(result.windowStart.cpu(until: result.windowEnd))
                    let capture = perFrame(result.windowStart.threadCPU(until: result.windowEnd))
                    let tearDown = Double(result.windowEnd.cpu(until: result.lifeEnd)) / 1e6
                    let packets = result.windowEnd.packets - result.windowStart.packets
                    log("    OTKit sent \(packets) SRTP packets; set-up \(TableReport.format(setUp)) ms, frames "
                        + "\(TableReport.format(steady)) ms/frame (capture thread \(TableReport.format(capture))), "
                        + "tear-down \(TableReport.format(tearDown)) ms")
                } else {
                    let before = sink.counts
                    let cpu = try gst(publishing)
                    sleepMilliseconds(20)
                    let after = sink.counts
                    let packets = after.rtpPackets - before.rtpPackets
                    guard packets >= UInt64(Self.frames) else {
                        throw ScenarioError("GStreamer sent \(packets) RTP packets for \(Self.frames) frames: the pipeline did not do the job")
                    }
                    g = perFrame(cpu)
                    let kbps = Double(after.rtpBytes - before.rtpBytes) * 8 / (Double(Self.frames) / 30) / 1000
                    log("    GStreamer sent \(packets) SRTP packets, \(TableReport.format(kbps)) kbps of media time")
                }
            }
            otkitMs.append(o); gstMs.append(g)
            // The source-only process starts up too: its start-up (the launch just before)
            // comes off, or the verdict subtracted GStreamer's start-up twice (~0.013
            // ms/frame, about 1 % in OTKit's favour).
            let startupNs = try gst(startup)
            let sourceNs = try gst(sourceOnly)
            startupMs.append(Double(startupNs) / 1e6)
            sourceMs.append(perFrame(sourceNs > startupNs ? sourceNs - startupNs : 0))
            let net = g - startupMs.last! / Double(Self.frames) - sourceMs.last!
            gstNetMs.append(net)
            pairedRatios.append(o / net)
            log("  \(label) vs GStreamer run \(run + 1)/\(runs): OTKit \(TableReport.format(o)) ms/frame, "
                + "GStreamer \(TableReport.format(g)) ms/frame (\(TableReport.format(net)) without start-up and source), "
                + "ratio \(TableReport.format(o / net)); "
                + "gst start-up \(TableReport.format(startupMs.last!)) ms, source \(TableReport.format(sourceMs.last!)) ms/frame")
        }
        var row = BenchResult.compared("\(label) pipeline CPU vs GStreamer (its start-up and filesrc subtracted; same bitstream, "
                                       + "\(publisher.codec.bitrateKbps) kbps, adaptation off, ≤ \(VP8Packetizer.defaultMaxPayloadSize)-byte payloads, SRTP GCM)",
                                       value: median(otkitMs), unit: "ms/frame", baseline: median(gstNetMs), goal: 1.0)
        row.ratio = median(pairedRatios)
        row.pass = median(pairedRatios) < 1.0
        var settings = BenchResult(name: "\(label) GStreamer vp8enc bitstream = the bare libvpx loop's with OTKit's settings",
                                   value: Double(check.gstreamerBytes), unit: "bytes", baseline: Double(check.bareBytes),
                                   ratio: check.bareBytes > 0 ? Double(check.gstreamerBytes) / Double(check.bareBytes) : nil)
        settings.goal = 1.0
        settings.pass = check.identical
        return [
            row,
            settings,
            .info("\(label) pipeline CPU vs GStreamer, whole processes", value: median(otkitMs), unit: "ms/frame",
                  baseline: median(gstMs)),
            .info("gstreamer start-up (fakesrc ! fakesink)", value: median(startupMs), unit: "ms CPU/process"),
            .info("gstreamer filesrc ! rawvideoparse alone (its start-up subtracted)", value: median(sourceMs), unit: "ms/frame"),
        ]
    }

    private func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}

/// Writes frames as a raw, tightly packed I420 file (what `rawvideoparse format=i420`
/// reads): per frame the Y rows, then U, then V, without stride padding.
enum RawI420File {
    /// Writes `count` frames, frame i being `frames[i % frames.count]`.
    static func write(frames: [VideoFrame], count: Int, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw ScenarioError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let first = frames[0]
        let lumaSize = first.width * first.height, chromaSize = first.chromaWidth * first.chromaHeight
        let packed = UnsafeMutablePointer<UInt8>.allocate(capacity: lumaSize + 2 * chromaSize)
        defer { packed.deallocate() }
        for index in 0..<count {
            let frame = frames[index % frames.count]
            copy(frame.y, stride: frame.strideY, width: frame.width, rows: frame.height, to: packed)
            copy(frame.u, stride: frame.strideUV, width: frame.chromaWidth, rows: frame.chromaHeight, to: packed + lumaSize)
            copy(frame.v, stride: frame.strideUV, width: frame.chromaWidth, rows: frame.chromaHeight, to: packed + lumaSize + chromaSize)
            var offset = 0
            let total = lumaSize + 2 * chromaSize
            while offset < total {
                let written = Glibc.write(fd, packed + offset, total - offset)
                guard written > 0 else { throw ScenarioError("cannot write \(path): \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    private static func copy(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, rows: Int, to destination: UnsafeMutablePointer<UInt8>) {
        for row in 0..<rows { (destination + row * width).update(from: plane + row * stride, count: width) }
    }
}
