import CTurboJPEG
import Testing
@testable import OTMedia

/// JPEGs made here with libturbojpeg from known planes, decoded through the converter.
@Suite struct MJPEGTests {
    /// Four flat quadrants (Y, U, V), aligned to 16-pixel MCUs so each block stays flat.
    static let colours: [(y: UInt8, u: UInt8, v: UInt8)] = [(235, 128, 128), (16, 128, 128), (81, 90, 240), (145, 54, 34)]

    /// Makes a `width`x`height` JPEG of the four quadrants at `subsampling` (a TJSAMP value).
    static func makeJPEG(width: Int, height: Int, subsampling: TJSAMP) throws -> [UInt8] {
        let sub = Int32(subsampling.rawValue)
        let chromaWidth = Int(tjPlaneWidth(1, Int32(width), sub)), chromaHeight = Int(tjPlaneHeight(1, Int32(height), sub))
        var y = [UInt8](repeating: 0, count: width * height)
        var u = [UInt8](repeating: 0, count: max(chromaWidth * chromaHeight, 1))
        var v = u
        func quadrant(_ x: Int, _ row: Int, _ w: Int, _ h: Int) -> Int { (x < w / 2 ? 0 : 1) + (row < h / 2 ? 0 : 2) }
        for row in 0..<height { for x in 0..<width { y[row * width + x] = colours[quadrant(x, row, width, height)].y } }
        if subsampling != TJSAMP_GRAY {
            for row in 0..<chromaHeight {
                for x in 0..<chromaWidth {
                    let colour = colours[quadrant(x, row, chromaWidth, chromaHeight)]
                    u[row * chromaWidth + x] = colour.u
                    v[row * chromaWidth + x] = colour.v
                }
            }
        }
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var jpeg: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = ctj_compress_from_planes(handle, y, Int32(width), u, Int32(chromaWidth), v, Int32(chromaWidth),
                                              Int32(width), Int32(height), sub, &jpeg, &size, 95, 0)
        try #require(status == 0 && jpeg != nil)
        defer { tjFree(jpeg) }
        return Array(UnsafeBufferPointer(start: jpeg, count: Int(size)))
    }

    static func decode(_ jpeg: [UInt8], width: Int, height: Int, converter: PixelConverter? = nil) throws -> VideoFrame {
        let converter = try converter ?? PixelConverter(pixelFormat: .mjpeg, width: width, height: height)
        let frame = VideoFrame(width: width, height: height)
        try jpeg.withUnsafeBytes { bytes in try converter.convert(bytes, into: frame) }
        return frame
    }

    /// Checks the centre 8x8 of each quadrant (luma) and centre 4x4 (chroma) within ±3.
    static func expectQuadrants(_ frame: VideoFrame, grey: Bool = false) {
        let w = frame.width, h = frame.height
        for quadrant in 0..<4 {
            let colour = colours[quadrant]
            let cx = (quadrant % 2) * w / 2 + w / 4, cy = (quadrant / 2) * h / 2 + h / 4
            for row in (cy - 4)..<(cy + 4) {
                for x in (cx - 4)..<(cx + 4) {
                    let value = Int(frame.luma(x: x, y: row))
                    #expect(abs(value - Int(colour.y)) <= 3, "Y at (\(x),\(row)) is \(value), expected \(colour.y)")
                }
            }
            for row in (cy / 2 - 2)..<(cy / 2 + 2) {
                for x in (cx / 2 - 2)..<(cx / 2 + 2) {
                    let u = Int(frame.u[row * frame.strideUV + x]), v = Int(frame.v[row * frame.strideUV + x])
                    let expected = grey ? (128, 128) : (Int(colour.u), Int(colour.v))
                    #expect(abs(u - expected.0) <= 3, "U at (\(x),\(row)) is \(u), expected \(expected.0)")
                    #expect(abs(v - expected.1) <= 3, "V at (\(x),\(row)) is \(v), expected \(expected.1)")
                }
            }
        }
    }

    @Test func jpeg420DecodesStraightToI420() throws {
        let jpeg = try Self.makeJPEG(width: 64, height: 32, subsampling: TJSAMP_420)
        Self.expectQuadrants(try Self.decode(jpeg, width: 64, height: 32))
    }

    /// Most webcams send 4:2:2 MJPEG: chroma must be halved vertically.
    @Test func jpeg422IsResampledToI420() throws {
        let jpeg = try Self.makeJPEG(width: 64, height: 32, subsampling: TJSAMP_422)
        Self.expectQuadrants(try Self.decode(jpeg, width: 64, height: 32))
    }

    @Test func jpeg444AndGreyAreHandled() throws {
        let full = try Self.makeJPEG(width: 64, height: 32, subsampling: TJSAMP_444)
        Self.expectQuadrants(try Self.decode(full, width: 64, height: 32))
        let grey = try Self.makeJPEG(width: 64, height: 32, subsampling: TJSAMP_GRAY)
        Self.expectQuadrants(try Self.decode(grey, width: 64, height: 32), grey: true)
    }

    @Test func oneConverterDecodesManyFramesAlternatingSubsampling() throws {
        let converter = try PixelConverter(pixelFormat: .mjpeg, width: 64, height: 32)
        let a = try Self.makeJPEG(width: 64, height: 32, subsampling: TJSAMP_422)
        let b = try Self.makeJPEG(width: 64, height: 32, subsampling: TJSAMP_420)
        for jpeg in [a, b, a, a, b] {
            Self.expectQuadrants(try Self.decode(jpeg, width: 64, height: 32, converter: converter))
        }
    }

    @Test func garbageIsMalformedInput() throws {
        let converter = try PixelConverter(pixelFormat: .mjpeg, width: 64, height: 32)
        let frame = VideoFrame(width: 64, height: 32)
        let garbage = [UInt8](repeating: 0x42, count: 300)
        let error = #expect(throws: MediaError.self) {
            try garbage.withUnsafeBytes { bytes in try converter.convert(bytes, into: frame) }
        }
        #expect(error?.code == .malformedInput)
    }

    @Test func wrongSizeIsMalformedInput() throws {
        let jpeg = try Self.makeJPEG(width: 32, height: 16, subsampling: TJSAMP_420)
        let error = #expect(throws: MediaError.self) { _ = try Self.decode(jpeg, width: 64, height: 32) }
        #expect(error?.code == .malformedInput)
        #expect(error?.message.contains("32x16") == true)
    }
}
