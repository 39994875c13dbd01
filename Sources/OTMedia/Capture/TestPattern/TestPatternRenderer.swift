/// Draws the test pattern's picture number `n`: deterministic, moving, compressible
/// content with the frame number stamped in (see `FrameNumberStamp`).
///
/// The picture is a function of (size, n) only, so a receiver can redraw the source of
/// any decoded frame and measure PSNR against it. Content: a diagonal luma gradient
/// panning 2 pixels per frame (motion an encoder can predict, as in a camera pan, not a
/// change of brightness it cannot), chroma bars, and a bouncing checkered box.
/// Cost: one pass over the frame, no allocation.
public enum TestPatternRenderer {
    /// Renders picture `number` into `frame` at the frame's current size.
    public static func render(_ number: UInt32, into frame: VideoFrame) {
        let w = frame.width, h = frame.height
        let t = Int(number % 100_000)
        // Luma: gradient plus the box.
        let box = boxRect(width: w, height: h, number: t)
        let check = max(4, box.size / 8)
        for y in 0..<h {
            let row = frame.y + y * frame.strideY
            let base = y * 64 / h
            let pan = 2 * t
            let inBoxRow = y >= box.y && y < box.y + box.size
            for x in 0..<w {
                row[x] = UInt8(truncatingIfNeeded: 40 + (base + (x + pan) * 128 / w) % 176)
            }
            if inBoxRow {
                let checkRow = ((y - box.y) / check) & 1
                for x in box.x..<(box.x + box.size) {
                    row[x] = ((x - box.x) / check) & 1 == checkRow ? 225 : 30
                }
            }
        }
        // Chroma: six vertical bars in U, a vertical gradient in V, shifting slowly.
        let cw = frame.chromaWidth, ch = frame.chromaHeight
        for y in 0..<ch {
            let rowU = frame.u + y * frame.strideUV, rowV = frame.v + y * frame.strideUV
            let v = UInt8(truncatingIfNeeded: 80 + (y * 96 / ch + t) % 96)
            for x in 0..<cw {
                rowU[x] = UInt8(truncatingIfNeeded: 88 + ((x * 6 / cw) * 16))
                rowV[x] = v
            }
        }
        FrameNumberStamp.write(number, into: frame)
    }

    /// The box bounces off the picture's edges, below the stamp's band.
    static func boxRect(width: Int, height: Int, number: Int) -> (x: Int, y: Int, size: Int) {
        let size = max(16, min(width, height) / 4) & ~1
        let top = FrameNumberStamp.bandHeight(width: width, height: height)
        let spanX = max(1, width - size), spanY = max(1, height - size - top)
        return (bounce(number * 4, span: spanX), top + bounce(number * 3, span: spanY), size)
    }

    private static func bounce(_ distance: Int, span: Int) -> Int {
        let phase = distance % (2 * span)
        return phase < span ? phase : 2 * span - phase
    }
}
