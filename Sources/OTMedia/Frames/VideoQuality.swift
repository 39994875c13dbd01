/// Picture-quality measures between two frames of the same size.
///
/// Cost: one pass over the compared planes, no allocation.
public enum VideoQuality {
    /// Peak signal-to-noise ratio of the Y plane, in dB (capped at 100 for identical
    /// planes). Both frames must have the same dimensions.
    public static func psnrY(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        precondition(a.width == b.width && a.height == b.height, "PSNR needs frames of one size")
        let sse = squaredError(a.y, a.strideY, b.y, b.strideY, width: a.width, height: a.height)
        return psnr(sse: sse, samples: a.width * a.height)
    }

    /// PSNR over all three planes together (Y, U and V samples weighted equally), in dB.
    public static func psnrYUV(_ a: VideoFrame, _ b: VideoFrame) -> Double {
        precondition(a.width == b.width && a.height == b.height, "PSNR needs frames of one size")
        let cw = a.chromaWidth, ch = a.chromaHeight
        var sse = squaredError(a.y, a.strideY, b.y, b.strideY, width: a.width, height: a.height)
        sse += squaredError(a.u, a.strideUV, b.u, b.strideUV, width: cw, height: ch)
        sse += squaredError(a.v, a.strideUV, b.v, b.strideUV, width: cw, height: ch)
        return psnr(sse: sse, samples: a.width * a.height + 2 * cw * ch)
    }

    private static func squaredError(
        _ a: UnsafeMutablePointer<UInt8>, _ strideA: Int,
        _ b: UnsafeMutablePointer<UInt8>, _ strideB: Int,
        width: Int, height: Int
    ) -> UInt64 {
        var total: UInt64 = 0
        for row in 0..<height {
            let ra = a + row * strideA, rb = b + row * strideB
            var rowSum: UInt32 = 0  // 640 × 255² fits; rows up to 66k pixels wide do too
            for x in 0..<width {
                let d = Int32(ra[x]) - Int32(rb[x])
                rowSum &+= UInt32(d * d)
            }
            total += UInt64(rowSum)
        }
        return total
    }

    private static func psnr(sse: UInt64, samples: Int) -> Double {
        guard sse > 0 else { return 100 }
        let mse = Double(sse) / Double(samples)
        return min(100, 10 * log10(255 * 255 / mse))
    }
}

#if canImport(Glibc)
import Glibc
#endif
