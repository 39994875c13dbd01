import Foundation
import OTMedia

/// Builds the JSON of `getRtcStatsReport()` in the shape browsers' `RTCPeerConnection.getStats()`
/// give (W3C webrtc-stats): an array of dictionaries with `id`, `type`, `timestamp`
/// (Unix milliseconds) and the type's counters, from a pipeline's `StreamCounters`.
/// Jitter and round-trip time are in seconds, as there. Counters the engine does not
/// keep are left out rather than reported as zero.
///
/// Cost: a few dictionaries and one `JSONSerialization` pass per call (on demand only).
enum RTCStatsReport {
    /// One RTP stream of a pipeline.
    struct Stream {
        /// "audio" or "video".
        var kind: String
        var ssrc: UInt32
        var payloadType: UInt8
        var clockRate: Int
        var counters: StreamCounters.Snapshot
        /// Video only: the size sent or last decoded, and the measured frame rate.
        var frameWidth: Int?
        var frameHeight: Int?
        var framesPerSecond: Double?

        var mimeType: String { kind == "video" ? "video/VP8" : "audio/opus" }
        var codecId: String { "CO\(kind)\(payloadType)" }
    }

    /// A publisher's report: per stream `codec`, `outbound-rtp`, `remote-inbound-rtp`
    /// (what the receiver reported in RTCP), then one `transport`.
    static func publisher(_ streams: [Stream], timestamp: Double) -> String {
        report(streams, timestamp: timestamp, packetsKey: "packetsSent", bytesKey: "bytesSent") { stream in
            let c = stream.counters
            var outbound = common("OT\(stream.kind)\(stream.ssrc)", "outbound-rtp", stream, timestamp)
            outbound["packetsSent"] = c.packets
            outbound["bytesSent"] = c.bytes
            outbound["retransmittedPacketsSent"] = c.retransmissions
            outbound["nackCount"] = c.nacks
            outbound["remoteId"] = "RI\(stream.kind)\(stream.ssrc)"
            if stream.kind == "video" {
                outbound["pliCount"] = c.keyframeRequests
                outbound["framesEncoded"] = c.frames
                outbound["keyFramesEncoded"] = c.keyframes
                addVideoShape(&outbound, stream)
            }
            var remote = common("RI\(stream.kind)\(stream.ssrc)", "remote-inbound-rtp", stream, timestamp)
            remote["localId"] = "OT\(stream.kind)\(stream.ssrc)"
            remote["packetsLost"] = c.packetsLost
            remote["jitter"] = Double(c.jitterNanoseconds) / 1e9
            if c.roundTripNanoseconds > 0 { remote["roundTripTime"] = Double(c.roundTripNanoseconds) / 1e9 }
            return [outbound, remote]
        }
    }

    /// A subscriber's report: per stream `codec` and `inbound-rtp`, then one `transport`.
    static func subscriber(_ streams: [Stream], timestamp: Double) -> String {
        report(streams, timestamp: timestamp, packetsKey: "packetsReceived", bytesKey: "bytesReceived") { stream in
            let c = stream.counters
            var inbound = common("IT\(stream.kind)\(stream.ssrc)", "inbound-rtp", stream, timestamp)
            inbound["packetsReceived"] = c.packets
            inbound["bytesReceived"] = c.bytes
            inbound["packetsLost"] = c.packetsLost
            inbound["jitter"] = Double(c.jitterNanoseconds) / 1e9
            inbound["nackCount"] = c.nacks
            if stream.kind == "video" {
                inbound["pliCount"] = c.keyframeRequests
                inbound["framesDecoded"] = c.frames
                inbound["keyFramesDecoded"] = c.keyframes
                addVideoShape(&inbound, stream)
            }
            return [inbound]
        }
    }

    /// Per stream its `codec` entry and what `entries` makes of it, then one `transport`
    /// entry with the streams' packet and byte totals under `packetsKey` / `bytesKey`.
    private static func report(_ streams: [Stream], timestamp: Double, packetsKey: String, bytesKey: String,
                               _ entries: (Stream) -> [[String: Any]]) -> String {
        var reports: [[String: Any]] = []
        var packets: UInt64 = 0
        var bytes: UInt64 = 0
        for stream in streams {
            packets += stream.counters.packets
            bytes += stream.counters.bytes
            reports.append(codec(stream, timestamp))
            reports += entries(stream)
        }
        reports.append(["id": "T01", "type": "transport", "timestamp": timestamp, packetsKey: packets, bytesKey: bytes])
        return serialize(reports)
    }

    private static func common(_ id: String, _ type: String, _ stream: Stream, _ timestamp: Double) -> [String: Any] {
        ["id": id, "type": type, "timestamp": timestamp, "ssrc": stream.ssrc, "kind": stream.kind,
         "transportId": "T01", "codecId": stream.codecId]
    }

    private static func codec(_ stream: Stream, _ timestamp: Double) -> [String: Any] {
        var codec: [String: Any] = ["id": stream.codecId, "type": "codec", "timestamp": timestamp, "transportId": "T01",
                                    "payloadType": stream.payloadType, "mimeType": stream.mimeType, "clockRate": stream.clockRate]
        if stream.kind == "audio" { codec["channels"] = 2 }  // RFC 7587: opus is always signalled with 2 channels
        return codec
    }

    private static func addVideoShape(_ report: inout [String: Any], _ stream: Stream) {
        if let width = stream.frameWidth, width > 0 { report["frameWidth"] = width }
        if let height = stream.frameHeight, height > 0 { report["frameHeight"] = height }
        if let fps = stream.framesPerSecond { report["framesPerSecond"] = (fps * 100).rounded() / 100 }
    }

    private static func serialize(_ reports: [[String: Any]]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: reports, options: [.sortedKeys]) else { return "[]" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Frames per second over the interval since the previous reading (or since `start`).
/// Not thread-safe: its owner serialises readings.
struct FrameRateMeter {
    private var lastFrames: UInt64 = 0
    private var lastTime: Double

    /// A meter whose first interval starts at `start` (seconds, any epoch).
    init(start: Double) { lastTime = start }

    /// The rate between the previous reading and (`frames`, `now`); nil for an empty interval.
    mutating func rate(frames: UInt64, now: Double) -> Double? {
        defer { lastFrames = frames; lastTime = now }
        let seconds = now - lastTime
        guard seconds > 0.001, frames >= lastFrames else { return nil }
        return Double(frames - lastFrames) / seconds
    }
}
