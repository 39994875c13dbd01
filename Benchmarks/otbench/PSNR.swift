import Glibc
import OTMedia

/// Peak signal-to-noise ratio of the Y planes of two same-size frames, in dB
/// (capped at 100 dB for identical planes). Cost: one pass over both planes.
func lumaPSNR(_ a: VideoFrame, _ b: VideoFrame) -> Double {
    precondition(a.width == b.width && a.height == b.height, "PSNR of frames of different sizes")
    var squaredError: UInt64 = 0
    for row in 0..<a.height {
        let lineA = a.y + row * a.strideY, lineB = b.y + row * b.strideY
        var rowError: UInt64 = 0
        for x in 0..<a.width {
            let d = Int(lineA[x]) - Int(lineB[x])
            rowError &+= UInt64(d * d)
        }
        squaredError &+= rowError
    }
    guard squaredError > 0 else { return 100 }
    let mse = Double(squaredError) / Double(a.width * a.height)
    return min(100, 10 * log10(255 * 255 / mse))
}

/// FNV-1a 64 over bytes, continuing from `hash` (the same digest CBareCodec computes).
func fnv1a(_ bytes: UnsafeRawBufferPointer, continuing hash: UInt64 = 14_695_981_039_346_656_037) -> UInt64 {
    var h = hash
    for byte in bytes {
        h ^= UInt64(byte)
        h = h &* 1_099_511_628_211
    }
    return h
}
