import CBareCodec
import OTMedia

/// OTKit's OpusEncoder against a bare libopus loop over the same frames, same settings.
struct OpusComparison {
    let format: AudioFormat
    let bitrate = 32_000
    let complexity = 10

    /// "opus mono 20ms 32k".
    var label: String { "opus \(format.channels == 1 ? "mono" : "stereo") \(format.frameMilliseconds)ms \(bitrate / 1000)k" }

    /// The settings both sides use: VOIP, VBR, no FEC, no DTX, 0 % expected loss.
    var settings: OpusEncoderSettings {
        var settings = OpusEncoderSettings(format: format)
        settings.bitrate = bitrate
        settings.complexity = complexity
        settings.inbandFEC = false
        settings.expectedLossPercent = 0
        settings.dtx = false
        return settings
    }

    /// Runs the check pass, then `runs` side-by-side timed runs; returns the result rows.
    func run(frames: [AudioFrame], runs: Int, warmUp: Int, timerCost: UInt64, log: ProgressLog) throws -> [BenchResult] {
        let packet = UnsafeMutableRawBufferPointer.allocate(byteCount: OpusEncoder.maximumPacketSize, alignment: 64)
        defer { packet.deallocate() }

        log("\(label): check pass (bitstream digest, coding modes; also warms both sides up)")
        let check = try checkPass(frames: frames, packet: packet)
        if check.otkitDigest != check.bareDigest {
            log("  warning: OTKit's packets differ from the bare loop's (\(check.otkitBytes) vs \(check.bareBytes) bytes): settings differ somewhere")
        } else {
            log("  bitstreams identical (\(check.otkitBytes) bytes): same settings, same input")
        }
        log("  modes (from the TOC byte): SILK \(check.modes[0]), hybrid \(check.modes[1]), CELT \(check.modes[2]) frames")

        let harness = SideBySide(frameCount: frames.count, warmUp: warmUp, timerCost: timerCost)
        let (otkit, bare) = try harness.repeated(runs: runs, label: label, log: log) { otkitFirst in
            // Fresh encoders every run, created in the order they start (see VP8Comparison).
            let encoder: OpusEncoder, bareEncoder: OpaquePointer
            if otkitFirst {
                encoder = try OpusEncoder(settings: settings)
                bareEncoder = try makeBare()
            } else {
                bareEncoder = try makeBare()
                encoder = try OpusEncoder(settings: settings)
            }
            defer { bare_opus_destroy(bareEncoder) }
            let output = packet.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let capacity = Int32(packet.count)
            return try harness.run(
                otkitFirst: otkitFirst,
                otkit: { index in try encoder.encode(frames[index], into: packet) },
                bare: { index in
                    let frame = frames[index]
                    let length = Int(bare_opus_encode(bareEncoder, frame.samples, Int32(frame.samplesPerChannel), output, capacity))
                    guard length > 0 else { throw ScenarioError("\(label): bare opus_encode failed (\(length))") }
                    return length
                })
        }
        log("  \(label): OTKit \(otkit.summary), bare \(bare.summary)")
        let seconds = Double(frames.count * format.frameMilliseconds) / 1000
        return [
            .compared("\(label) encode CPU", value: median(otkit.millisecondsPerFrame), unit: "ms/frame",
                      baseline: median(bare.millisecondsPerFrame), goal: 1.03),
            .bounded("\(label) allocations", value: otkit.allocationsPerFrame.max()!, unit: "allocs/frame",
                     baseline: bare.allocationsPerFrame.max()!, goal: 0),
            .info("\(label) output bitrate", value: Double(check.otkitBytes) * 8 / seconds / 1000, unit: "kbps",
                  baseline: Double(check.bareBytes) * 8 / seconds / 1000),
        ]
    }

    /// What the untimed check pass found.
    struct Check {
        var otkitBytes = 0, bareBytes = 0
        var otkitDigest: UInt64 = fnvOffsetBasis
        var bareDigest: UInt64 = fnvOffsetBasis
        /// Frames coded as SILK, hybrid, CELT (OTKit's output).
        var modes = [0, 0, 0]
    }

    /// Encodes every frame on both sides without timing and hashes both outputs.
    func checkPass(frames: [AudioFrame], packet: UnsafeMutableRawBufferPointer) throws -> Check {
        var check = Check()
        let encoder = try OpusEncoder(settings: settings)
        for frame in frames {
            let length = try encoder.encode(frame, into: packet)
            check.otkitBytes += length
            check.otkitDigest = fnv1a(UnsafeRawBufferPointer(rebasing: packet[0..<length]), continuing: check.otkitDigest)
            let config = packet[0] >> 3    // RFC 6716 3.1: 0-11 SILK, 12-15 hybrid, 16-31 CELT
            check.modes[config < 12 ? 0 : config < 16 ? 1 : 2] += 1
        }
        let bare = try makeBare()
        defer { bare_opus_destroy(bare) }
        let output = packet.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for frame in frames {
            let length = Int(bare_opus_encode(bare, frame.samples, Int32(frame.samplesPerChannel), output, Int32(packet.count)))
            guard length > 0 else { throw ScenarioError("\(label): bare opus_encode failed (\(length))") }
            check.bareBytes += length
            check.bareDigest = fnv1a(UnsafeRawBufferPointer(rebasing: packet[0..<length]), continuing: check.bareDigest)
        }
        return check
    }

    private func makeBare() throws -> OpaquePointer {
        guard let encoder = bare_opus_create(Int32(format.channels), Int32(bitrate), Int32(complexity)) else {
            throw ScenarioError("\(label): bare libopus encoder could not be created")
        }
        return encoder
    }
}
