import Testing
@testable import OTMedia

/// Known pixels through libyuv: every output byte checked against a hand computation.
@Suite struct PixelConversionTests {
    /// The I420 planes of a frame, tightly packed, for comparison.
    static func planes(_ frame: VideoFrame) -> (y: [UInt8], u: [UInt8], v: [UInt8]) {
        var y = [UInt8](), u = [UInt8](), v = [UInt8]()
        for row in 0..<frame.height { for x in 0..<frame.width { y.append(frame.y[row * frame.strideY + x]) } }
        for row in 0..<frame.chromaHeight {
            for x in 0..<frame.chromaWidth {
                u.append(frame.u[row * frame.strideUV + x])
                v.append(frame.v[row * frame.strideUV + x])
            }
        }
        return (y, u, v)
    }

    static func convert(_ input: [UInt8], _ format: PixelFormat, width: Int, height: Int, bytesPerLine: Int? = nil) throws -> VideoFrame {
        let converter = try PixelConverter(pixelFormat: format, width: width, height: height, bytesPerLine: bytesPerLine)
        let frame = VideoFrame(width: width, height: height)
        try input.withUnsafeBytes { bytes in try converter.convert(bytes, into: frame) }
        return frame
    }

    @Test func yuyvFourByTwo() throws {
        // Row 0: Y 10 20 30 40, U 100 110, V 200 210. Row 1: Y 50 60 70 80, U 120 130, V 220 230.
        let input: [UInt8] = [10, 100, 20, 200, 30, 110, 40, 210,
                              50, 120, 60, 220, 70, 130, 80, 230]
        let frame = try Self.convert(input, .yuyv, width: 4, height: 2)
        let out = Self.planes(frame)
        #expect(out.y == [10, 20, 30, 40, 50, 60, 70, 80])
        #expect(out.u == [110, 120], "U is the average of the two rows")
        #expect(out.v == [210, 220])
    }

    @Test func yuyvSixteenByEightWithPaddedRows() throws {
        let width = 16, height = 8, bytesPerLine = 48 // 32 bytes of pixels + 16 of padding
        var input = [UInt8](repeating: 0xEE, count: bytesPerLine * height)
        func y(_ x: Int, _ row: Int) -> UInt8 { UInt8((x * 13 + row * 29 + 7) % 256) }
        func u(_ pair: Int, _ row: Int) -> UInt8 { UInt8((pair * 31 + row * 17 + 40) % 256) }
        func v(_ pair: Int, _ row: Int) -> UInt8 { UInt8((pair * 11 + row * 23 + 90) % 256) }
        for row in 0..<height {
            for pair in 0..<width / 2 {
                let at = row * bytesPerLine + pair * 4
                input[at] = y(pair * 2, row); input[at + 1] = u(pair, row)
                input[at + 2] = y(pair * 2 + 1, row); input[at + 3] = v(pair, row)
            }
        }
        let frame = try Self.convert(input, .yuyv, width: width, height: height, bytesPerLine: bytesPerLine)
        for row in 0..<height { for x in 0..<width { #expect(frame.y[row * frame.strideY + x] == y(x, row)) } }
        for row in 0..<height / 2 {
            for pair in 0..<width / 2 {
                // libyuv averages the two source rows, rounding halves up.
                let expectedU = UInt8((Int(u(pair, 2 * row)) + Int(u(pair, 2 * row + 1)) + 1) / 2)
                let expectedV = UInt8((Int(v(pair, 2 * row)) + Int(v(pair, 2 * row + 1)) + 1) / 2)
                #expect(frame.u[row * frame.strideUV + pair] == expectedU)
                #expect(frame.v[row * frame.strideUV + pair] == expectedV)
            }
        }
    }

    @Test func nv12FourByTwo() throws {
        let input: [UInt8] = [1, 2, 3, 4,
                              5, 6, 7, 8,
                              100, 200, 110, 210] // U0 V0 U1 V1
        let out = Self.planes(try Self.convert(input, .nv12, width: 4, height: 2))
        #expect(out.y == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(out.u == [100, 110])
        #expect(out.v == [200, 210])
    }

    @Test func nv12SixteenByEight() throws {
        let width = 16, height = 8
        let input = (0..<(width * height * 3 / 2)).map { UInt8(($0 * 7 + 3) % 256) }
        let out = Self.planes(try Self.convert(input, .nv12, width: width, height: height))
        #expect(out.y == Array(input[0..<width * height]))
        let chroma = Array(input[(width * height)...])
        #expect(out.u == stride(from: 0, to: chroma.count, by: 2).map { chroma[$0] })
        #expect(out.v == stride(from: 1, to: chroma.count, by: 2).map { chroma[$0] })
    }

    @Test func yu12IsCopiedExactly() throws {
        let width = 16, height = 8
        let input = (0..<(width * height * 3 / 2)).map { UInt8(($0 * 5 + 11) % 256) }
        let out = Self.planes(try Self.convert(input, .yu12, width: width, height: height))
        #expect(out.y == Array(input[0..<128]))
        #expect(out.u == Array(input[128..<160]))
        #expect(out.v == Array(input[160..<192]))
    }

    @Test func yu12WithPaddedRows() throws {
        // 4x2 with bytesPerLine 8: chroma rows are 4 bytes apart (bytesPerLine / 2).
        let input: [UInt8] = [1, 2, 3, 4, 0, 0, 0, 0,
                              5, 6, 7, 8, 0, 0, 0, 0,
                              50, 51, 0, 0,
                              60, 61, 0, 0]
        let out = Self.planes(try Self.convert(input, .yu12, width: 4, height: 2, bytesPerLine: 8))
        #expect(out.y == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(out.u == [50, 51])
        #expect(out.v == [60, 61])
    }

    @Test(arguments: [PixelFormat.yuyv, .nv12, .yu12])
    func shortBufferIsRejected(format: PixelFormat) throws {
        let converter = try PixelConverter(pixelFormat: format, width: 16, height: 8)
        let frame = VideoFrame(width: 16, height: 8)
        // One byte short of a 16x8 picture: YUYV 2 bytes/pixel, NV12 and YU12 1.5.
        let needed = format == .yuyv ? 16 * 8 * 2 : 16 * 8 * 3 / 2
        #expect(converter.minimumInputByteCount == needed)
        let input = [UInt8](repeating: 0, count: needed - 1)
        let error = #expect(throws: MediaError.self) {
            try input.withUnsafeBytes { bytes in try converter.convert(bytes, into: frame) }
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func rowLengthShorterThanPictureIsRejected() {
        let error = #expect(throws: MediaError.self) {
            _ = try PixelConverter(pixelFormat: .yuyv, width: 16, height: 8, bytesPerLine: 16)
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func poolConversionDropsWhenExhausted() throws {
        let converter = try PixelConverter(pixelFormat: .nv12, width: 4, height: 2)
        let pool = VideoFramePool(width: 4, height: 2, initialCount: 1, maximumCount: 1)
        let input: [UInt8] = [9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 4]
        let held = try input.withUnsafeBytes { bytes in try converter.convert(bytes, from: pool) }
        #expect(held?.luma(x: 3, y: 1) == 9)
        let none = try input.withUnsafeBytes { bytes in try converter.convert(bytes, from: pool) }
        #expect(none == nil, "the only frame is held, so the pool must be empty")
        #expect(pool.createdCount == 1)
        _ = held
    }

    @Test func pixelFormatFourCCs() {
        #expect(PixelFormat.yuyv.fourcc == 0x5659_5559)
        #expect(PixelFormat.nv12.fourcc == 0x3231_564E)
        #expect(PixelFormat.yu12.fourcc == 0x3231_5559)
        #expect(PixelFormat.mjpeg.fourcc == 0x4750_4A4D)
        for format in PixelFormat.allCases { #expect(PixelFormat(fourcc: format.fourcc) == format) }
        #expect(PixelFormat(fourcc: fourCharacterCode("JPEG")) == .mjpeg)
        #expect(PixelFormat(fourcc: fourCharacterCode("RGB3")) == nil)
        #expect(PixelFormat.nv12.description == "NV12")
        #expect(fourCharacterString(0x0000_0001) == "????")
    }

    @Test func scalerHalvesFlatAndGradientPictures() throws {
        let source = VideoFrame(width: 16, height: 8)
        for row in 0..<8 { for x in 0..<16 { source.y[row * source.strideY + x] = UInt8(x * 16) } }
        for row in 0..<4 {
            for x in 0..<8 { source.u[row * source.strideUV + x] = 90; source.v[row * source.strideUV + x] = 170 }
        }
        source.timestampNanoseconds = 1234
        source.sequence = 77
        let pool = VideoFramePool(width: 8, height: 4, initialCount: 1, maximumCount: 1)
        let scaled = try #require(try FrameScaler.scale(source, from: pool, filter: .box))
        #expect(scaled.width == 8 && scaled.height == 4)
        // A 2x2 box over columns 2x and 2x+1: (32x + 32x + 16) / 2 = 32x + 8.
        for row in 0..<4 { for x in 0..<8 { #expect(scaled.luma(x: x, y: row) == UInt8(32 * x + 8)) } }
        let out = Self.planes(scaled)
        #expect(out.u.allSatisfy { $0 == 90 } && out.v.allSatisfy { $0 == 170 })
        #expect(scaled.timestampNanoseconds == 1234 && scaled.sequence == 77)
    }

    @Test(arguments: [FrameScaler.Filter.nearest, .bilinear, .box])
    func scalerUpscalesFlatColourExactly(filter: FrameScaler.Filter) throws {
        let source = VideoFrame(width: 8, height: 4)
        for i in 0..<(8 * 4) { source.y[(i / 8) * source.strideY + i % 8] = 200 }
        for i in 0..<(4 * 2) {
            source.u[(i / 4) * source.strideUV + i % 4] = 60
            source.v[(i / 4) * source.strideUV + i % 4] = 30
        }
        let destination = VideoFrame(width: 32, height: 16)
        try FrameScaler.scale(source, into: destination, filter: filter)
        let out = Self.planes(destination)
        #expect(out.y.allSatisfy { $0 == 200 })
        #expect(out.u.allSatisfy { $0 == 60 } && out.v.allSatisfy { $0 == 30 })
    }
}
