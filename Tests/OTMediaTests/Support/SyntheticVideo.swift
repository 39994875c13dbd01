import Glibc
import OTMedia

/// Moving, textured I420 test content for codec tests, built like camera footage: a
/// textured background (three sine gratings, with a seam where the 512-pixel texture
/// wraps) panning 2 px right and 1 px down per frame, an opaque 160x160 checkerboard
/// (20 px squares) moving on its own path over it, and ±2 LSB of fresh sensor noise in
/// every frame. Deterministic: frame `t` is always the same picture.
///
/// (Test-only: harder to encode than TestPatternSource, like real camera footage.)
enum SyntheticVideo {
    /// 30 fps frame spacing in nanoseconds.
    static let frameNanoseconds: UInt64 = 33_333_333
    private static let size = 512

    /// The background texture, `size`x`size` luma values.
    private static let texture: [UInt8] = {
        var values = [UInt8](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let fx = Double(x), fy = Double(y)
                let v = 128 + 45 * sin(2 * .pi * fx / 97) + 30 * sin(2 * .pi * fy / 61) + 25 * sin(2 * .pi * (fx + fy) / 41)
                values[y * size + x] = UInt8(clamping: Int(v.rounded()))
            }
        }
        return values
    }()

    /// Top-left corner of the checkerboard in frame `t` (bouncing inside the picture).
    private static func objectOrigin(_ t: Int, width: Int, height: Int, side: Int) -> (x: Int, y: Int) {
        func bounce(_ p: Int, _ span: Int) -> Int {
            guard span > 0 else { return 0 }
            let m = p % (2 * span)
            return m < span ? m : 2 * span - m
        }
        return (bounce(40 + 3 * t, width - side), bounce(30 + 2 * t, height - side))
    }

    /// Draws frame number `t` into `frame` and stamps it `t` frame intervals after 1 s.
    static func draw(_ t: Int, into frame: VideoFrame) {
        let width = frame.width, height = frame.height
        let side = min(160, width / 2, height / 2)
        let object = objectOrigin(t, width: width, height: height, side: side)
        let panX = 2 * t, panY = t
        var seed = UInt32(truncatingIfNeeded: t &* 2_654_435_761) | 1
        texture.withUnsafeBufferPointer { tex in
            for row in 0..<height {
                let line = frame.y + row * frame.strideY
                let texRow = ((row - panY) & (size - 1)) * size
                let inObjectRows = row >= object.y && row < object.y + side
                for x in 0..<width {
                    var value: Int
                    if inObjectRows, x >= object.x, x < object.x + side {
                        value = (((x - object.x) / 20) ^ ((row - object.y) / 20)) & 1 == 1 ? 200 : 50
                    } else {
                        value = Int(tex[texRow + ((x - panX) & (size - 1))])
                    }
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    value += Int(seed >> 24) % 5 - 2
                    line[x] = UInt8(clamping: value)
                }
            }
            for row in 0..<frame.chromaHeight {
                let u = frame.u + row * frame.strideUV, v = frame.v + row * frame.strideUV
                let texRow = ((2 * row - panY) & (size - 1)) * size
                for x in 0..<frame.chromaWidth {
                    let lx = 2 * x, ly = 2 * row
                    if ly >= object.y, ly < object.y + side, lx >= object.x, lx < object.x + side {
                        u[x] = 128
                        v[x] = 128
                    } else {
                        let value = Int(tex[texRow + ((2 * x - panX) & (size - 1))])
                        u[x] = UInt8(clamping: 64 + value / 2)
                        v[x] = UInt8(clamping: 192 - value / 2)
                    }
                }
            }
        }
        frame.timestampNanoseconds = 1_000_000_000 + UInt64(t) * frameNanoseconds
        frame.sequence = UInt64(t)
    }

    /// A new frame of the given size holding frame number `t`.
    static func frame(_ t: Int, width: Int, height: Int) -> VideoFrame {
        let frame = VideoFrame(width: width, height: height)
        draw(t, into: frame)
        return frame
    }
}
