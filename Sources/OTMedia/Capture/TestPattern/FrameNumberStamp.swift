/// Writes a frame number into a picture as black and white blocks, and reads it back
/// after lossy compression. This is how the engine's tests and benchmarks identify each
/// decoded frame end to end (loss, order, latency) without side channels.
///
/// Layout: 2 rows of 16 square cells in the top-left corner, 32 bits: a 24-bit frame
/// number (most significant bit first) then an 8-bit CRC (polynomial 0x07) of it, so a
/// damaged stamp reads as nil rather than as a wrong number. Cells are at least 8 pixels
/// (1/40 of the shorter side of a 16:9 box), which survives VP8 at a few hundred kbps.
///
/// Cost: writes or samples 32 cells; no allocation.
public enum FrameNumberStamp {
    static let columns = 16
    static let rows = 2

    /// The side of one cell in pixels for a picture of this size.
    public static func cellSize(width: Int, height: Int) -> Int {
        max(8, min(width, height * 16 / 9) / 40)
    }

    /// The height of the band the stamp occupies (rows × cell).
    public static func bandHeight(width: Int, height: Int) -> Int {
        rows * cellSize(width: width, height: height)
    }

    /// Stamps `number` (mod 2^24) into `frame`'s luma (and neutral chroma under it).
    public static func write(_ number: UInt32, into frame: VideoFrame) {
        let cell = cellSize(width: frame.width, height: frame.height)
        guard columns * cell <= frame.width, rows * cell <= frame.height else { return }
        let value = number & 0xFF_FFFF
        let word = value << 8 | UInt32(crc8(value))
        for bit in 0..<(columns * rows) {
            let on = (word >> UInt32(31 - bit)) & 1 == 1
            let x0 = (bit % columns) * cell, y0 = (bit / columns) * cell
            let luma: UInt8 = on ? 235 : 16
            for y in y0..<(y0 + cell) {
                (frame.y + y * frame.strideY + x0).update(repeating: luma, count: cell)
            }
            for y in (y0 / 2)..<((y0 + cell) / 2) {
                (frame.u + y * frame.strideUV + x0 / 2).update(repeating: 128, count: cell / 2)
                (frame.v + y * frame.strideUV + x0 / 2).update(repeating: 128, count: cell / 2)
            }
        }
    }

    /// The number stamped in `frame`, or nil if the stamp is missing or damaged.
    public static func read(from frame: VideoFrame) -> UInt32? {
        let cell = cellSize(width: frame.width, height: frame.height)
        guard columns * cell <= frame.width, rows * cell <= frame.height else { return nil }
        var word: UInt32 = 0
        let inset = cell / 4
        for bit in 0..<(columns * rows) {
            let x0 = (bit % columns) * cell + inset, y0 = (bit / columns) * cell + inset
            var sum = 0, count = 0
            for y in y0..<(y0 + cell - 2 * inset) {
                let row = frame.y + y * frame.strideY
                for x in x0..<(x0 + cell - 2 * inset) {
                    sum += Int(row[x])
                    count += 1
                }
            }
            word = word << 1 | (sum / count > 125 ? 1 : 0)
        }
        let value = word >> 8
        return UInt8(word & 0xFF) == crc8(value) ? value : nil
    }

    /// CRC-8 (polynomial x^8+x^2+x+1) over the three bytes of a 24-bit value.
    static func crc8(_ value: UInt32) -> UInt8 {
        var crc: UInt8 = 0
        for shift in stride(from: 16, through: 0, by: -8) {
            crc ^= UInt8((value >> UInt32(shift)) & 0xFF)
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}
