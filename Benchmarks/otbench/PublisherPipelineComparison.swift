import CBareCodec
import CBarePublisher
import OTMedia

/// OTKit's `PublisherPipeline` (VP8 → RFC 7741 → SRTP AEAD_AES_128_GCM → UDP, no audio)
/// against a bare C publisher doing the same job with the same frames and settings
/// (`CBarePublisher`: libvpx → RTP → libsrtp2 → one sendmmsg per frame, one thread), and
/// the pipeline's allocations per packet in steady state. The bare libvpx encode alone
/// is reported beside it (info): it sends nothing, so it is not equal work.
///
/// Method:
/// - Both sides get the same pre-rendered frames in the same order with the same
///   timestamps (`PreRenderedVideoSource`: round-robin, 33.3 ms apart); the encoder
///   settings are `VP8Comparison`'s (cpu-used -6, 1 thread, 500 kbps, WebRTC's RC).
/// - Equal work: the pipeline's adaptation is pinned (`adaptiveVideo = false`, the
///   estimate fixed at `pinnedEstimate`), so its encoder holds the bare loop's 500 kbps
///   and its pacer never holds the unpaced source's packets back. With adaptation on, the
///   encoder followed the estimate down and the pacer held or dropped packets (243 kbps
///   sent against the bare loop's 507 in one run): the CPU ratio then compared different
///   work. The sent bitrate row checks the two sides did the same work (within 5 %).
/// - OTKit: a fresh pipeline per run sends to the `PacketSink`; the source marks frame
///   `warmUp` and the end, and at each mark the capture thread reads the process CPU
///   clock minus the sink's drain thread, the allocation counters, the packets sent.
///   Every thread of the pipeline is in that figure: capture/encode/send, the feedback
///   thread (sender reports), and the kernel's loopback work done in their system calls.
/// - Bare: a fresh `bare_vp8` encoder per run on the main thread, the same frames, the
///   same window, the same clock (process CPU minus the drain).
/// - Equal packets: the bare publisher cuts frames as OTKit's packetizer does (equal
///   fragments, the longer first), carries the same 8-byte transport-wide extension and
///   sends each frame's run of equal sizes as one UDP GSO message, as OTKit does; the rows
///   check both sent the same RTP packets and bytes in the window.
/// - Rounds: OTKit and the bare publisher back to back (the first flips every round), the
///   bare encode beside them; the verdict is the median of the per-round paired ratios,
///   the value columns the medians of the per-run CPU per frame.
struct PublisherPipelineComparison {
    let codec = VP8Comparison(width: 640, height: 480, bitrateKbps: 500)
    /// Frames per run before the window (encoder start-up, first keyframe, first packets).
    static let warmUp = 30
    /// Frames in the window (~0.7 s of CPU per side: a shorter window left the ratio to
    /// the machine's noise).
    static let measured = 600
    /// Packet buffers the pipeline makes up front (see `runOTKit`).
    static let packetBuffers = 256
    /// The bandwidth estimate the pipeline is pinned at, bits/s (see `runOTKit`).
    static let pinnedEstimate = 40_000_000

    /// "publisher 640x480 500k".
    var label: String { "publisher \(codec.width)x\(codec.height) \(codec.bitrateKbps)k" }

    /// The SRTP keys both publishers use: AEAD_AES_128_GCM, bytes 0, 1, …, 27.
    static var keyMaterial: SRTPKeyMaterial {
        get throws { try SRTPKeyMaterial(profile: .aeadAES128GCM, keyAndSalt: (0..<28).map { UInt8($0) }) }
    }

    /// One OTKit run's figures.
    struct Run {
        /// Readings at the window's start and end.
        var windowStart: PipelineReading
        var windowEnd: PipelineReading
        /// Readings before the pipeline was created and after it stopped.
        var lifeStart: PipelineReading
        var lifeEnd: PipelineReading
        /// Packet buffers the pipeline's pool made beyond `packetBuffers` (0: it never grew).
        var buffersGrown: Int
    }

    /// Runs the OTKit publisher over `total` frames; the window is [warmUp, total).
    /// `directSends` false: every packet through the transport thread (the info row's
    /// comparison), as before the capture thread sent its own frames.
    func runOTKit(frames: [VideoFrame], total: Int, warmUp: Int, sink: PacketSink, directSends: Bool = true) throws -> Run {
        let probe = WindowProbe(sink: sink, startIndex: warmUp)
        let source = PreRenderedVideoSource(frames: frames, count: total, marks: [warmUp]) { probe.mark($0) }
        var configuration = PublisherConfiguration(destination: sink.address, video: codec.settings, audio: nil)
        configuration.keys = SRTPLegKeys(send: try Self.keyMaterial, receive: try Self.keyMaterial)
        configuration.localAddress = .ipv4Loopback()
        // Equal work: the encoder holds the bare loop's fixed bitrate, and the estimate (so
        // the pacer's rate, 2.5 ×) is pinned far above what the unpaced source makes per
        // wall-clock second (~10 Mbit/s at ~600 frames/s), so no packet waits in the pacer
        // at the window's edges and none is dropped as stale.
        configuration.adaptiveVideo = false
        configuration.bandwidthEstimation.initialBitrate = Self.pinnedEstimate
        configuration.bandwidthEstimation.minBitrate = Self.pinnedEstimate
        configuration.bandwidthEstimation.maxBitrate = Self.pinnedEstimate
        // The unpaced source runs ~20 × real time, so when the loaded machine holds the
        // transport thread off for 100 ms the capture thread has made ~140 packets where a
        // camera makes 6: the default 96 buffers then grew by up to 61 inside the window
        // (122 allocations on the capture thread, 0.097 "added" per packet). Made up front
        // instead, as the configuration says for such sources (growth is logged per run).
        configuration.packetBufferCount = Self.packetBuffers
        configuration.directSends = directSends
        let lifeStart = PipelineReading.now(sink: sink)
        let pipeline = try PublisherPipeline(configuration: configuration, videoSource: source, audioSource: nil)
        probe.counters = pipeline.videoCounters
        try pipeline.start()
        var finished = false
        for _ in 0..<60 where !finished {
            finished = probe.waitForEnd(milliseconds: 1000)
            if !pipeline.errorsSeen.isEmpty { break }
        }
        pipeline.stop()
        let lifeEnd = PipelineReading.now(sink: sink)
        let grown = pipeline.packetBuffersCreated - Self.packetBuffers
        if let error = pipeline.errorsSeen.first { throw ScenarioError("\(label): the publisher failed: \(error)") }
        guard finished, let start = probe.start, let end = probe.end else {
            throw ScenarioError("\(label): the publisher did not send \(total) frames within 60 s")
        }
        return Run(windowStart: start, windowEnd: end, lifeStart: lifeStart, lifeEnd: lifeEnd, buffersGrown: grown)
    }

    /// One bare run: (CPU ns over the window, bytes over the window, allocations over it).
    func runBare(frames: [VideoFrame], total: Int, warmUp: Int, sink: PacketSink) throws -> (cpu: UInt64, bytes: Int, allocations: UInt64) {
        let encoder = try codec.makeBare()
        defer { bare_vp8_destroy(encoder) }
        var start = PipelineReading.now(sink: sink)
        var bytes = 0
        for index in 0..<total {
            if index == warmUp { start = PipelineReading.now(sink: sink); bytes = 0 }
            let frame = frames[index % frames.count]
            frame.timestampNanoseconds = PreRenderedVideoSource.timestamp(ofFrame: index)
            frame.sequence = UInt64(index)
            bytes += try codec.encodeBare(encoder, frame)
        }
        let end = PipelineReading.now(sink: sink)
        return (start.cpu(until: end), bytes, end.allocations - start.allocations)
    }

    /// One bare C publisher run: (CPU ns over the window, SRTP bytes and packets sent over it).
    func runBarePublisher(frames: [VideoFrame], total: Int, warmUp: Int, sink: PacketSink) throws
        -> (cpu: UInt64, bytes: Int, packets: UInt64) {
        let encoder = try codec.makeBare()
        defer { bare_vp8_destroy(encoder) }
        let key = (0..<28).map { UInt8($0) }  // `keyMaterial`'s bytes
        guard let publisher = key.withUnsafeBufferPointer({
            bare_publisher_create(encoder, $0.baseAddress, sink.address.port, 0x0BA2_E001)
        }) else {
            throw ScenarioError("\(label): bare publisher: \(String(cString: bare_publisher_last_error()))")
        }
        defer { bare_publisher_destroy(publisher) }
        var start = PipelineReading.now(sink: sink)
        var bytes = 0
        var packetsBefore: UInt64 = 0
        for index in 0..<total {
            if index == warmUp { start = PipelineReading.now(sink: sink); bytes = 0; packetsBefore = bare_publisher_packets(publisher) }
            let frame = frames[index % frames.count]
            frame.timestampNanoseconds = PreRenderedVideoSource.timestamp(ofFrame: index)
            frame.sequence = UInt64(index)
            let rtpTime = UInt32(truncatingIfNeeded: frame.timestampNanoseconds / 100_000 * 9)  // 90 kHz
            let sent = bare_publisher_send_frame(publisher, frame.y, frame.u, frame.v, Int32(frame.strideY),
                                                 Int32(frame.strideUV), VP8Comparison.pts(frame), codec.duration, rtpTime)
            guard sent >= 0 else { throw ScenarioError("\(label): bare publisher: \(String(cString: bare_publisher_last_error()))") }
            bytes += sent
        }
        let end = PipelineReading.now(sink: sink)
        return (start.cpu(until: end), bytes, bare_publisher_packets(publisher) - packetsBefore)
    }

    /// Runs the CPU and allocation comparison; returns its rows.
    func run(frames: [VideoFrame], runs: Int, sink: PacketSink, libsrtp: LibSRTPAllocations, log: ProgressLog) throws -> [BenchResult] {
        let total = Self.warmUp + Self.measured
        log("\(label): pipeline (VP8 → RTP → SRTP GCM → UDP to \(sink.address)) vs bare libvpx, "
            + "\(Self.measured) frames after \(Self.warmUp) warm-up, \(runs) runs per side")
        // Untimed warm-up of both sides (code, caches, the frames' pages, libsrtp init).
        _ = try runOTKit(frames: frames, total: Self.warmUp + 10, warmUp: Self.warmUp, sink: sink)
        _ = try runBare(frames: frames, total: Self.warmUp + 10, warmUp: Self.warmUp, sink: sink)
        _ = try runBarePublisher(frames: frames, total: Self.warmUp + 10, warmUp: Self.warmUp, sink: sink)

        var otkitMs: [Double] = [], bareMs: [Double] = [], barePublisherMs: [Double] = []
        var captureMs: [Double] = [], restMs: [Double] = []
        var rawAllocations: [Double] = [], addedAllocations: [Double] = []
        var sentKbps: [Double] = [], barePublisherKbps: [Double] = []
        var pairedRatios: [Double] = []
        // Rounds with the hand-over run too: its CPU over OTKit's (direct sends) in that round.
        var handOverRatios: [Double] = [], handOverMs: [Double] = []
        var otkitPackets: [UInt64] = [], barePackets: [UInt64] = []
        let seconds = Double(Self.measured) / 30
        for run in 0..<runs {
            var otkit: Run?
            var bare: (cpu: UInt64, bytes: Int, allocations: UInt64)?
            var barePublisher: (cpu: UInt64, bytes: Int, packets: UInt64)?
            var handOver: Run?
            // OTKit and the bare publisher back to back (a pair), the first of them flipping
            // every round; the bare encode (info only) in every other round, before the pair
            // or after it in turn, so no side always runs first or last.
            for side in Self.order(round: run) {
                switch side {
                case .otkit: otkit = try runOTKit(frames: frames, total: total, warmUp: Self.warmUp, sink: sink)
                case .barePublisher:
                    barePublisher = try runBarePublisher(frames: frames, total: total, warmUp: Self.warmUp, sink: sink)
                case .bareEncode: bare = try runBare(frames: frames, total: total, warmUp: Self.warmUp, sink: sink)
                case .otkitHandOver:
                    handOver = try runOTKit(frames: frames, total: total, warmUp: Self.warmUp, sink: sink, directSends: false)
                }
            }
            let o = otkit!, p = barePublisher!
            let oMs = Double(o.windowStart.cpu(until: o.windowEnd)) / 1e6 / Double(Self.measured)
            let bMs = bare.map { Double($0.cpu) / 1e6 / Double(Self.measured) }
            let pMs = Double(p.cpu) / 1e6 / Double(Self.measured)
            otkitMs.append(oMs); barePublisherMs.append(pMs)
            if let bMs { bareMs.append(bMs) }
            pairedRatios.append(oMs / pMs)
            let hMs = handOver.map { Double($0.windowStart.cpu(until: $0.windowEnd)) / 1e6 / Double(Self.measured) }
            if let hMs {
                handOverMs.append(hMs)
                handOverRatios.append(hMs / oMs)
            }
            // Where OTKit's CPU goes: the capture thread (encode, packetize, hand-over) and
            // everything else (the transport thread's pacing, SRTP, sends and their
            // loopback delivery; sender reports).
            let cMs = Double(o.windowStart.threadCPU(until: o.windowEnd)) / 1e6 / Double(Self.measured)
            captureMs.append(cMs); restMs.append(oMs - cMs)
            let packets = o.windowEnd.packets - o.windowStart.packets
            let rtcp = o.windowEnd.rtcpPackets - o.windowStart.rtcpPackets
            let allocations = o.windowEnd.allocations - o.windowStart.allocations
            let captureThread = o.windowEnd.threadAllocations - o.windowStart.threadAllocations
            let raw = Double(allocations) / Double(max(packets, 1))
            // libsrtp's own share: 5 per RTP packet and per SRTCP compound with Debian's
            // NSS build, more for the first SRTCP compound of the pipeline's RTCP session
            // (libsrtp clones its stream template then), which is in the window when the
            // sink saw no RTCP between the pipeline's creation and the window's start.
            var libsrtpShare = libsrtp.perRTPPacket * Double(packets) + libsrtp.perRTCPPacket * Double(rtcp)
            if rtcp > 0 && o.windowStart.rtcpPackets == o.lifeStart.rtcpPackets {
                libsrtpShare += libsrtp.firstRTCPPacket - libsrtp.perRTCPPacket
            }
            let added = (Double(allocations) - libsrtpShare) / Double(max(packets, 1))
            rawAllocations.append(raw); addedAllocations.append(added)
            otkitPackets.append(packets); barePackets.append(p.packets)
            sentKbps.append(Double(o.windowEnd.bytes - o.windowStart.bytes) * 8 / seconds / 1000)
            barePublisherKbps.append(Double(p.bytes) * 8 / seconds / 1000)
            log("  \(label) run \(run + 1)/\(runs): OTKit \(TableReport.format(oMs)) ms/frame, bare publisher "
                + "\(TableReport.format(pMs)) ms/frame (ratio \(TableReport.format(oMs / pMs))), bare encode "
                + "\(bMs.map { TableReport.format($0) } ?? "(not run)") ms/frame, OTKit with the hand-over "
                + "\(hMs.map { TableReport.format($0) } ?? "(not run)") ms/frame; OTKit's capture thread \(TableReport.format(cMs)), other threads "
                + "\(TableReport.format(oMs - cMs)) ms/frame; \(packets) RTP + \(rtcp) RTCP packets, \(allocations) allocations "
                + "(\(captureThread) on the capture thread, pool grown by \(o.buffersGrown)), bare encode \(bare.map { "\($0.allocations)" } ?? "-"); OTKit sent \(o.windowEnd.bytes - o.windowStart.bytes) "
                + "bytes, the bare publisher \(p.packets) RTP packets, \(p.bytes) bytes")
        }
        log("  \(label): OTKit \(summary(otkitMs)), bare publisher \(summary(barePublisherMs)), bare encode \(summary(bareMs))")
        let worstAdded = addedAllocations.max()!
        // The verdict: the median of the per-round paired ratios (the two sides measured back
        // to back), which cancels the shared machine's drift over seconds that a ratio of
        // two medians keeps; the value and baseline columns stay the two medians.
        var verdict = BenchResult.compared(
            "\(label) pipeline CPU vs bare C publisher (same packets, SRTP GCM, UDP GSO sends; bitrate pinned, adaptation off; "
                + "median of \(runs) paired ratios)",
            value: median(otkitMs), unit: "ms/frame", baseline: median(barePublisherMs), goal: Self.goal)
        verdict.ratio = median(pairedRatios)
        verdict.pass = median(pairedRatios) <= Self.goal
        log("  \(label): paired ratios OTKit / bare publisher: \(pairedRatios.map { TableReport.format($0) }.joined(separator: " ")); "
            + "median \(TableReport.format(median(pairedRatios)))")
        return [
            verdict,
            .info("\(label) pipeline CPU vs bare libvpx encode alone (sends nothing: not equal work)", value: median(otkitMs),
                  unit: "ms/frame", baseline: median(bareMs)),
            handOverRow(handOverMs: handOverMs, ratios: handOverRatios),
            .info("\(label) capture thread (encode, packetize, hand-over) vs bare libvpx encode alone", value: median(captureMs),
                  unit: "ms/frame", baseline: median(bareMs)),
            // No baseline: the bare publisher's share beyond its encode is the difference of
            // two runs ~1 % apart, which the machine's noise swamps (it came out negative).
            .info("\(label) other threads (pace, SRTP, send, RTCP)", value: median(restMs), unit: "ms/frame"),
            .bounded("\(label) allocations added", value: abs(worstAdded) < 1e-9 ? 0 : worstAdded, unit: "allocs/packet",
                     baseline: libsrtp.perRTPPacket, goal: 0),
            .info("\(label) allocations raw", value: rawAllocations.max()!, unit: "allocs/packet"),
            sentBitrateRow(sent: median(sentKbps), bare: median(barePublisherKbps)),
            .info("\(label) RTP packets in the window (OTKit; baseline: the bare publisher)",
                  value: Double(otkitPackets.max()!), unit: "packets", baseline: Double(barePackets.max()!)),
        ]
    }

    /// The pipeline's SRTP bitrate against the bare publisher's SRTP bitrate: within 5 %
    /// either way means both sides did the same work (OTKit's header extensions add ~1 %).
    private func sentBitrateRow(sent: Double, bare: Double) -> BenchResult {
        var row = BenchResult.compared("\(label) sent bitrate (SRTP) within 5 % of the bare publisher's", value: sent, unit: "kbps",
                                       baseline: bare, goal: 1.05)
        row.pass = row.ratio.map { abs($0 - 1) <= 0.05 } ?? false
        return row
    }

    /// Information: the pipeline with every frame handed to the transport thread
    /// (`directSends` off: a wake-up, `ppoll` and `read` per frame) against the same
    /// pipeline sending its frames from the capture thread, in the same rounds; the ratio
    /// is the median of the per-round ratios.
    private func handOverRow(handOverMs: [Double], ratios: [Double]) -> BenchResult {
        var row = BenchResult.info("\(label) pipeline CPU with the hand-over to the transport thread (directSends off) "
                                       + "vs direct sends (median of \(ratios.count) rounds' ratios)",
                                   value: handOverMs.isEmpty ? 0 : median(handOverMs), unit: "ms/frame")
        row.ratio = ratios.isEmpty ? nil : median(ratios)
        return row
    }

    /// The goal of the CPU verdict against the bare C publisher: ≤ 1.05.
    static let goal = 1.05

    /// One side of a round.
    enum Side { case otkit, barePublisher, bareEncode, otkitHandOver }

    /// The order of round `round`: OTKit and the bare publisher adjacent, the first of them
    /// flipping every round; an info side in every round, after the pair in rounds 0, 1,
    /// 4, 5, … and before it in rounds 2, 3, 6, 7, …: the bare encode in even rounds, OTKit
    /// with direct sends off in odd ones.
    static func order(round: Int) -> [Side] {
        let pair: [Side] = round % 2 == 0 ? [.otkit, .barePublisher] : [.barePublisher, .otkit]
        let extra: Side = round % 2 == 0 ? .bareEncode : .otkitHandOver
        return (round / 2) % 2 == 0 ? pair + [extra] : [extra] + pair
    }

    private func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        return "\(TableReport.format(median(sorted))) (\(TableReport.format(sorted.first!))–\(TableReport.format(sorted.last!))) ms/frame"
    }
}
