import Glibc
import OTMedia

/// A deterministic, camera-like I420 clip rendered into memory before any timing:
/// a panning textured background, a moving shaded disc and a moving striped
/// rectangle, plus ±2 LSB of per-pixel noise that changes every frame (sensor noise).
///
/// Content matters for a codec benchmark: flat or static patterns encode far faster
/// than a camera does, and would make a fixed per-frame overhead look large. This clip
/// is built like the camera-like clip of the project's reference measurements.
/// Cost: one VideoFrame per frame (1.4 MB each at 1280x720), rendered once.
enum CameraClip {
    /// `count` frames of `width`x`height`, stamped at `frameRate` from t = 0.
    static func render(width: Int, height: Int, count: Int, frameRate: Double = 30) -> [VideoFrame] {
        let texture = Texture(width: width + 2 * panX, height: height + 2 * panY, seed: 0x5EED_CAFE)
        var noise = NoiseGenerator(seed: UInt32(truncatingIfNeeded: width &* 31 &+ height))
        var frames: [VideoFrame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            let frame = VideoFrame(width: width, height: height)
            frame.timestampNanoseconds = UInt64((Double(index) * 1e9 / frameRate).rounded())
            frame.sequence = UInt64(index)
            draw(frame, index: index, texture: texture, noise: &noise)
            frames.append(frame)
        }
        return frames
    }

    /// Horizontal and vertical pan range of the background, in pixels.
    private static let panX = 320
    private static let panY = 80

    private static func draw(_ frame: VideoFrame, index: Int, texture: Texture, noise: inout NoiseGenerator) {
        let width = frame.width, height = frame.height
        // The camera pans along a triangle wave: 2 px/frame across, 1 px every other frame down.
        let offsetX = triangle(index * 2, period: 2 * panX)
        let offsetY = triangle(index / 2, period: 2 * panY)
        for row in 0..<height {
            let source = texture.luma.baseAddress! + (row + offsetY) * texture.width + offsetX
            let target = frame.y + row * frame.strideY
            for x in 0..<width { target[x] = source[x] }
        }
        for row in 0..<frame.chromaHeight {
            let sourceRow = (row + offsetY / 2) * texture.chromaWidth + offsetX / 2
            let u = frame.u + row * frame.strideUV, v = frame.v + row * frame.strideUV
            for x in 0..<frame.chromaWidth {
                u[x] = texture.u[sourceRow + x]
                v[x] = texture.v[sourceRow + x]
            }
        }
        drawDisc(frame, index: index)
        drawStripes(frame, index: index)
        addNoise(frame, noise: &noise)
    }

    /// A shaded disc on a Lissajous path, reddish.
    private static func drawDisc(_ frame: VideoFrame, index: Int) {
        let width = frame.width, height = frame.height
        let phase = Double(index)
        let centerX = Int(Double(width) * (0.5 + 0.33 * sin(phase * 2 * .pi / 150)))
        let centerY = Int(Double(height) * (0.5 + 0.3 * sin(phase * 2 * .pi / 97)))
        let radius = height / 7
        for row in max(0, centerY - radius)..<min(height, centerY + radius) {
            let dy = row - centerY
            let line = frame.y + row * frame.strideY
            for x in max(0, centerX - radius)..<min(width, centerX + radius) {
                let dx = x - centerX
                let d2 = dx * dx + dy * dy
                guard d2 < radius * radius else { continue }
                // Lit from the top left: brighter towards (-r/3, -r/3).
                let lx = dx + radius / 3, ly = dy + radius / 3
                let shade = 230 - (lx * lx + ly * ly) * 140 / (radius * radius * 2)
                line[x] = UInt8(clamping: shade)
            }
        }
        for row in max(0, (centerY - radius) / 2)..<min(frame.chromaHeight, (centerY + radius) / 2) {
            let dy = row * 2 - centerY
            let u = frame.u + row * frame.strideUV, v = frame.v + row * frame.strideUV
            for x in max(0, (centerX - radius) / 2)..<min(frame.chromaWidth, (centerX + radius) / 2) {
                let dx = x * 2 - centerX
                guard dx * dx + dy * dy < radius * radius else { continue }
                u[x] = 96
                v[x] = 190
            }
        }
    }

    /// A rectangle with diagonal stripes, bouncing left and right, bluish.
    private static func drawStripes(_ frame: VideoFrame, index: Int) {
        let width = frame.width, height = frame.height
        let boxWidth = width / 5, boxHeight = height / 6
        let left = triangle(index * 5, period: 2 * (width - boxWidth))
        let top = height * 2 / 3 + triangle(index, period: 2 * (height / 3 - boxHeight))
        for row in top..<min(height, top + boxHeight) {
            let line = frame.y + row * frame.strideY
            for x in left..<min(width, left + boxWidth) {
                line[x] = ((x + row + index * 3) / 6) % 2 == 0 ? 40 : 215
            }
        }
        for row in (top / 2)..<min(frame.chromaHeight, (top + boxHeight) / 2) {
            let u = frame.u + row * frame.strideUV, v = frame.v + row * frame.strideUV
            for x in (left / 2)..<min(frame.chromaWidth, (left + boxWidth) / 2) {
                u[x] = 170
                v[x] = 110
            }
        }
    }

    /// ±2 LSB on every luma and chroma sample, fresh each frame.
    private static func addNoise(_ frame: VideoFrame, noise: inout NoiseGenerator) {
        func perturb(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
            for row in 0..<height {
                let line = plane + row * stride
                for x in 0..<width {
                    line[x] = UInt8(clamping: Int(line[x]) + noise.nextOffset())
                }
            }
        }
        perturb(frame.y, stride: frame.strideY, width: frame.width, height: frame.height)
        perturb(frame.u, stride: frame.strideUV, width: frame.chromaWidth, height: frame.chromaHeight)
        perturb(frame.v, stride: frame.strideUV, width: frame.chromaWidth, height: frame.chromaHeight)
    }

    /// 0, 1, …, period/2, …, 1, 0, … (a bounce between 0 and period/2).
    private static func triangle(_ value: Int, period: Int) -> Int {
        guard period > 0 else { return 0 }
        let position = value % period
        return position <= period / 2 ? position : period - position
    }
}

/// The background the camera pans over: smooth blobs, mid-size detail and fine grain.
private final class Texture {
    let width: Int, height: Int
    let chromaWidth: Int
    let luma: UnsafeMutableBufferPointer<UInt8>
    let u: UnsafeMutableBufferPointer<UInt8>
    let v: UnsafeMutableBufferPointer<UInt8>

    init(width: Int, height: Int, seed: UInt32) {
        self.width = width
        self.height = height
        chromaWidth = width / 2
        luma = .allocate(capacity: width * height)
        u = .allocate(capacity: chromaWidth * (height / 2 + 1))
        v = .allocate(capacity: chromaWidth * (height / 2 + 1))
        var grain = NoiseGenerator(seed: seed)
        for y in 0..<height {
            for x in 0..<width {
                let coarse = ValueNoise.sample(x: x, y: y, cell: 48, seed: seed) - 128    // ±128
                let medium = ValueNoise.sample(x: x, y: y, cell: 9, seed: seed &+ 1) - 128
                let fine = Int(grain.next() % 13) - 6
                luma[y * width + x] = UInt8(clamping: 120 + coarse * 5 / 10 + medium * 2 / 10 + fine)
            }
        }
        for y in 0..<(height / 2 + 1) {
            for x in 0..<chromaWidth {
                u[y * chromaWidth + x] = UInt8(clamping: 128 + (ValueNoise.sample(x: x, y: y, cell: 40, seed: seed &+ 2) - 128) / 4)
                v[y * chromaWidth + x] = UInt8(clamping: 128 + (ValueNoise.sample(x: x, y: y, cell: 40, seed: seed &+ 3) - 128) / 4)
            }
        }
    }

    deinit {
        luma.deallocate()
        u.deallocate()
        v.deallocate()
    }
}

/// Bilinearly interpolated lattice noise, 0...255, deterministic in (x, y, seed).
private enum ValueNoise {
    static func sample(x: Int, y: Int, cell: Int, seed: UInt32) -> Int {
        let cx = x / cell, cy = y / cell
        let fx = x % cell, fy = y % cell
        let a = lattice(cx, cy, seed), b = lattice(cx + 1, cy, seed)
        let c = lattice(cx, cy + 1, seed), d = lattice(cx + 1, cy + 1, seed)
        let top = a * (cell - fx) + b * fx
        let bottom = c * (cell - fx) + d * fx
        return (top * (cell - fy) + bottom * fy) / (cell * cell)
    }

    private static func lattice(_ x: Int, _ y: Int, _ seed: UInt32) -> Int {
        var h = UInt32(truncatingIfNeeded: x) &* 0x8DA6_B343 ^ UInt32(truncatingIfNeeded: y) &* 0xD816_3841 ^ seed
        h ^= h >> 13
        h = h &* 0x85EB_CA6B
        h ^= h >> 16
        return Int(h & 0xFF)
    }
}

/// xorshift32: fast, deterministic pseudo-random numbers for noise.
struct NoiseGenerator {
    private var state: UInt32

    init(seed: UInt32) { state = seed == 0 ? 0x9E37_79B9 : seed }

    /// The next 32 random bits.
    mutating func next() -> UInt32 {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return state
    }

    /// A value in -2...2.
    mutating func nextOffset() -> Int {
        Int(next() % 5) - 2
    }

    /// A value in -1...1 (uniform).
    mutating func nextUnit() -> Double {
        Double(next()) / Double(UInt32.max) * 2 - 1
    }
}
