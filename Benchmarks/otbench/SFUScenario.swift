import Glibc
import OTMedia

/// `otbench sfu`: OTKit's router against Janus's VideoRoom (Debian's `janus`), side by
/// side on this machine with the same load — one publisher sending a pre-encoded VP8 +
/// Opus clip (640x480 30 fps, VP8 at 500 kbps, no simulcast) and N subscribers, every leg
/// made by OTKit's own WebRTC client code (ICE, DTLS-SRTP; see `SFULoad`). For each N
/// (default 1, 10, 50, 100) and each SFU, a fresh SFU process: the publisher connects and
/// sends for 1 s, the SFU's RSS is read, the N subscribers connect, media flows until
/// every subscriber has whole frames, then a measured window of `--seconds` (5): the SFU
/// process's utime + stime (`/proc/PID/stat`) over the window, and the packets every
/// subscriber authenticated (SRTP unprotect) and the frames it completed (marker bit).
/// Figures: CPU per forwarded packet (window CPU ÷ packets the subscribers received),
/// loss at the subscribers (1 − received ÷ (sent × N)), memory per subscriber leg (RSS
/// growth from before the subscribers to after the window, ÷ N) and the largest N held
/// with < 1 % loss. Both SFUs negotiate the same SRTP suite (AES_CM_128_HMAC_SHA1_80: the
/// client offers only that). Goals at the largest N: router CPU per forwarded packet ≤
/// 0.5 × Janus's, memory per subscriber leg ≤ Janus's. The machine is shared: figures
/// vary run to run.
enum SFUScenario: Scenario {
    static let name = "sfu"
    static let summary = "OTKit's router vs Janus VideoRoom: CPU per forwarded packet, loss, memory per leg (1 pub x N subs)"
    static let defaultSubscribers = [1, 10, 50, 100]
    static let profile = SRTPProfile.aesCM128HMACSHA1_80

    /// One SFU's figures at one N.
    struct Measurement {
        var cpuPerPacket: Double = 0  // ns
        var loss: Double = 0  // fraction
        var bytesPerLeg: Double = 0
        var forwarded: UInt64 = 0
        var sent: UInt64 = 0
        var minimumFrames: UInt64 = 0
        var failures: UInt64 = 0
    }

    static func run(options: Options, log: ProgressLog) throws -> [BenchResult] {
        // A child SFU that dies mid-request must not kill otbench with SIGPIPE: the write fails instead.
        signal(SIGPIPE, SIG_IGN)
        let seconds = options.seconds ?? 5
        let counts = options.subscribers ?? defaultSubscribers
        log("sfu: encoding the clip (10 s of 640x480 VP8 at 500 kbps + Opus)")
        let clip = try ArchiveClip.make(frames: 300, videoKbps: 500)
        log("sfu: clip \(clip.videoPackets) video + \(clip.audioPackets) audio packets, \(clip.bytes * 8 / 10_000) kbit/s RTP")
        var rows: [BenchResult] = []
        var held: [String: Int] = [:]
        var last: (otkit: Measurement, janus: Measurement)?
        for (position, n) in counts.enumerated() {
            // Alternate which SFU goes first, so neither always runs on a warmer machine.
            var otkit = Measurement(), janus = Measurement()
            for side in position % 2 == 0 ? ["otkit", "janus"] : ["janus", "otkit"] {
                let sfu: SFUUnderTest = side == "otkit" ? try OTKitSFU(profile: profile, log: log) : try JanusSFU(log: log)
                defer { sfu.stop() }
                let measured = try measure(sfu, subscribers: n, seconds: seconds, clip: clip, log: log)
                if side == "otkit" { otkit = measured } else { janus = measured }
                if measured.loss < 0.01 { held[side] = max(held[side] ?? 0, n) }
            }
            last = (otkit, janus)
            let label = "sfu 1x\(n)"
            rows += [
                .info("\(label) SFU CPU per forwarded packet, OTKit vs Janus (SRTP \(profile.rfcName))",
                      value: otkit.cpuPerPacket, unit: "ns", baseline: janus.cpuPerPacket),
                .info("\(label) packets lost at the subscribers, OTKit vs Janus", value: otkit.loss * 100, unit: "%",
                      baseline: janus.loss * 100),
                .info("\(label) memory per subscriber leg (RSS growth / N), OTKit vs Janus", value: otkit.bytesPerLeg / 1024,
                      unit: "KiB", baseline: janus.bytesPerLeg / 1024),
                .info("\(label) whole frames at the slowest subscriber, OTKit vs Janus", value: Double(otkit.minimumFrames),
                      unit: "frames", baseline: Double(janus.minimumFrames)),
                .info("\(label) packets that failed SRTP authentication at the subscribers, OTKit vs Janus",
                      value: Double(otkit.failures), unit: "packets", baseline: Double(janus.failures)),
            ]
        }
        if let (otkit, janus) = last, let n = counts.last {
            rows += [
                .compared("router CPU per forwarded packet vs Janus (1x\(n), SRTP \(profile.rfcName))", value: otkit.cpuPerPacket,
                          unit: "ns", baseline: janus.cpuPerPacket, goal: 0.5),
                .compared("memory per subscriber leg vs Janus (1x\(n))", value: otkit.bytesPerLeg / 1024, unit: "KiB",
                          baseline: janus.bytesPerLeg / 1024, goal: 1.0),
            ]
        }
        rows.append(.info("largest N held with < 1 % loss (of \(counts.map(String.init).joined(separator: ", "))), OTKit vs Janus",
                          value: Double(held["otkit"] ?? 0), unit: "subscribers", baseline: Double(held["janus"] ?? 0)))
        return rows
    }

    /// One SFU, one N: connect, warm up, measure one window.
    static func measure(_ sfu: SFUUnderTest, subscribers n: Int, seconds: Int, clip: ArchiveClip,
                        log: ProgressLog) throws -> Measurement {
        let publisherIdentity = try SFUClientLeg.Identity(host: sfu.mediaHost)
        let publisherEndpoint = try sfu.publish(publisherIdentity)
        let publisher = try connect(publisherIdentity, publisherEndpoint)
        let load = try SFULoad(clip: clip, publisher: publisher, audioSSRC: publisherEndpoint.audioSSRC,
                               videoSSRC: publisherEndpoint.videoSSRC)
        try load.pump(nanoseconds: 1_000_000_000, sending: true)
        let rssBefore = try sfu.process.residentBytes()
        for index in 0..<n {
            let identity = try SFUClientLeg.Identity(host: sfu.mediaHost)
            let endpoint = try sfu.subscribe(identity, index: index)
            let leg = try connect(identity, endpoint)
            try load.addSubscriber(leg, videoPayloadType: endpoint.videoPayloadType)
            if index % 10 == 9 { try load.pump(nanoseconds: 100_000_000, sending: true) }  // keep the stream alive
        }
        // Warm-up: every subscriber has completed frames (up to 60 s), then 1 s more. An SFU
        // that starves some subscribers is still measured: the window's loss shows it.
        let warm = try load.pump(sending: true) { load.counts.allSatisfy { $0.frames >= 3 } }
        if !warm {
            let short = load.counts.filter { $0.frames < 3 }.count
            log("  \(sfu.label) 1x\(n): \(short) of \(n) subscribers completed fewer than 3 frames in 60 s; measuring anyway")
        }
        try load.pump(nanoseconds: 1_000_000_000, sending: true)
        // The window: drained before and after (until nothing arrives for 300 ms).
        try drain(load)
        let before = load.counts, sentBefore = load.sent
        let cpuBefore = try sfu.process.cpuNanoseconds()
        try load.pump(nanoseconds: UInt64(seconds) * 1_000_000_000, sending: true)
        try drain(load)
        let cpu = try sfu.process.cpuNanoseconds() - cpuBefore
        let rssAfter = try sfu.process.residentBytes()
        let after = load.counts
        var result = Measurement()
        result.sent = load.sent - sentBefore
        result.forwarded = zip(after, before).reduce(0) { $0 + $1.0.packets - $1.1.packets }
        result.failures = zip(after, before).reduce(0) { $0 + $1.0.failures - $1.1.failures }
        result.minimumFrames = zip(after, before).map { $0.frames - $1.frames }.min() ?? 0
        result.cpuPerPacket = Double(cpu) / Double(max(result.forwarded, 1))
        let expected = Double(result.sent) * Double(n)
        result.loss = expected > 0 ? max(0, 1 - Double(result.forwarded) / expected) : 1
        result.bytesPerLeg = (Double(rssAfter) - Double(rssBefore)) / Double(n)
        log("  \(sfu.label) 1x\(n): sent \(result.sent), forwarded \(result.forwarded) (expected \(Int(expected))), "
            + "loss \(TableReport.format(result.loss * 100)) %, CPU \(cpu / 1_000_000) ms = \(Int(result.cpuPerPacket)) ns/packet, "
            + "RSS \(rssBefore >> 10) → \(rssAfter >> 10) KiB (\(Int(result.bytesPerLeg / 1024)) KiB/leg), "
            + "frames min \(result.minimumFrames), auth failures \(result.failures)")
        return result
    }

    /// Receives without sending until nothing has arrived for 300 ms (up to 10 s): what
    /// the SFU still had queued is counted before the window starts or ends.
    private static func drain(_ load: SFULoad) throws {
        var settled = load.counts.reduce(0) { $0 + $1.packets }, stillSince = MonotonicClock.nanoseconds()
        try load.pump(sending: false, limit: 10_000_000_000) {
            let now = load.counts.reduce(0) { $0 + $1.packets }
            if now != settled { settled = now; stillSince = MonotonicClock.nanoseconds() }
            return MonotonicClock.nanoseconds() - stillSince > 300_000_000
        }
    }

    private static func connect(_ identity: SFUClientLeg.Identity, _ endpoint: SFUEndpoint) throws -> SFUClientLeg {
        try SFUClientLeg.connect(identity, host: endpoint.host, port: endpoint.port, ufrag: endpoint.ufrag,
                                 password: endpoint.password, fingerprint: endpoint.fingerprint, profile: profile)
    }
}
