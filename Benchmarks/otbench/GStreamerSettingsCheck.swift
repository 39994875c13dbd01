import CBareCodec
import Glibc
import OTMedia

/// Proves that GStreamer's vp8enc encodes with OTKit's libvpx settings: an untimed pass
/// encodes the comparison's raw I420 file with GStreamer's encoder element into a file
/// (`vp8enc … ! filesink`: the compressed frames back to back) and the same frames with
/// the bare libvpx loop (`VP8Comparison.makeBare`, the settings and the timestamps
/// `VP8Encoder` uses: 90 kHz pts from each frame's `PreRenderedVideoSource` time, 3000
/// ticks per frame); the two FNV-1a 64 digests must match. The bare loop's bitstream is
/// OTKit's (the codec scenario proves that byte for byte), so a match means the same
/// frames, settings and rate control on both sides of the GStreamer rows.
///
/// The check found that vp8enc, left to its 1/90000 timebase, floors each frame's
/// 33,333,333 ns to 2,999 ticks where OTKit passes 3,000: libvpx then saw 30.01 fps and
/// wrote 0.15 % fewer bytes. With `timebase=1/10000000` (libvpx's own 10 MHz) the floors
/// vanish and the bitstreams are identical.
///
/// Cost: one GStreamer encode and one bare encode of the file's frames (~2 s), untimed.
struct GStreamerSettingsCheck {
    /// Compressed bytes and digests of both sides.
    var gstreamerBytes = 0, bareBytes = 0
    var gstreamerDigest: UInt64 = fnvOffsetBasis, bareDigest: UInt64 = 0

    /// Whether the two bitstreams are the same.
    var identical: Bool { gstreamerBytes == bareBytes && gstreamerDigest == bareDigest }

    /// Runs both encodes over `count` frames (frame i is `frames[i % frames.count]`, as in
    /// `file`). `encode` runs GStreamer with the given tokens and throws when it fails.
    static func run(comparison: GStreamerComparison, file: String, frames: [VideoFrame], count: Int,
                    encode: ([String]) throws -> Void) throws -> GStreamerSettingsCheck {
        var check = GStreamerSettingsCheck()
        let output = "/tmp/otbench-vp8enc-\(getpid()).vp8"
        defer { unlink(output) }
        try encode(comparison.source(file: file) + ["!"] + comparison.encoderTokens + ["!", "filesink", "location=\(output)"])
        let bytes = try readFile(output)
        check.gstreamerBytes = bytes.count
        check.gstreamerDigest = bytes.withUnsafeBytes { fnv1a($0) }

        let codec = comparison.publisher.codec
        let bare = try codec.makeBare()
        defer { bare_vp8_destroy(bare) }
        bare_vp8_enable_digest(bare)
        for index in 0..<count {
            let frame = frames[index % frames.count]
            frame.timestampNanoseconds = PreRenderedVideoSource.timestamp(ofFrame: index)
            frame.sequence = UInt64(index)
            check.bareBytes += try codec.encodeBare(bare, frame)
        }
        check.bareDigest = bare_vp8_digest(bare)
        return check
    }

    /// The whole file at `path`.
    private static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ScenarioError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard got >= 0 else { throw ScenarioError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if got == 0 { return bytes }
            bytes += chunk[0..<got]
        }
    }
}
