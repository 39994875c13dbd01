import OTRecording
import Testing

/// The layout math as tables: the rectangle of every stream for N streams per layout type
/// and canvas, the fitting of a picture in its cell, and the parsing of what REST gives.
@Suite struct ComposerLayoutTests {
    private static func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int) -> LayoutRect {
        LayoutRect(x: x, y: y, width: width, height: height)
    }

    private struct Row: CustomStringConvertible {
        var layout: CompositionLayout
        var canvas: CanvasResolution
        var streams: [LayoutStream]
        var cells: [LayoutRect]
        var description: String { "\(layout.kind) \(canvas) ×\(streams.count)" }
    }

    private static let plain = LayoutStream()
    private static let focus = LayoutStream(isFocus: true)
    private static let screen = LayoutStream(isScreenshare: true)
    private static let hd = CanvasResolution(width: 1280, height: 720)
    private static let vga = CanvasResolution(width: 640, height: 480)
    private static let portrait = CanvasResolution(width: 720, height: 1280)
    private static let fullHD = CanvasResolution(width: 1920, height: 1080)

    private static let rows: [Row] = [
        // bestFit grids
        Row(layout: .standard, canvas: hd, streams: [plain], cells: [rect(0, 0, 1280, 720)]),
        Row(layout: .standard, canvas: hd, streams: [plain, plain], cells: [rect(0, 0, 640, 720), rect(640, 0, 640, 720)]),
        Row(layout: .standard, canvas: hd, streams: [plain, plain, plain],
            cells: [rect(0, 0, 640, 360), rect(640, 0, 640, 360), rect(320, 360, 640, 360)]),
        Row(layout: .standard, canvas: hd, streams: [plain, plain, plain, plain],
            cells: [rect(0, 0, 640, 360), rect(640, 0, 640, 360), rect(0, 360, 640, 360), rect(640, 360, 640, 360)]),
        Row(layout: .standard, canvas: vga, streams: Array(repeating: plain, count: 5),
            cells: [rect(2, 0, 212, 240), rect(214, 0, 212, 240), rect(426, 0, 212, 240), rect(108, 240, 212, 240), rect(320, 240, 212, 240)]),
        Row(layout: .standard, canvas: portrait, streams: [plain, plain], cells: [rect(0, 0, 720, 640), rect(0, 640, 720, 640)]),
        Row(layout: .standard, canvas: fullHD, streams: Array(repeating: plain, count: 9),
            cells: (0..<9).map { rect(($0 % 3) * 640, ($0 / 3) * 360, 640, 360) }),
        // pip
        Row(layout: CompositionLayout(.pip), canvas: hd, streams: [plain, plain],
            cells: [rect(0, 0, 1280, 720), rect(920, 500, 320, 180)]),
        Row(layout: CompositionLayout(.pip), canvas: hd, streams: [plain, plain, plain],
            cells: [rect(0, 0, 1280, 720), rect(920, 500, 320, 180), rect(560, 500, 320, 180)]),
        Row(layout: CompositionLayout(.pip), canvas: hd, streams: [plain, focus],
            cells: [rect(920, 500, 320, 180), rect(0, 0, 1280, 720)]),
        Row(layout: CompositionLayout(.pip), canvas: vga, streams: [plain], cells: [rect(0, 0, 640, 480)]),
        // presentations
        Row(layout: CompositionLayout(.verticalPresentation), canvas: hd, streams: [plain, plain, plain],
            cells: [rect(0, 0, 1024, 720), rect(1024, 0, 256, 360), rect(1024, 360, 256, 360)]),
        Row(layout: CompositionLayout(.horizontalPresentation), canvas: vga, streams: [plain, plain, plain],
            cells: [rect(0, 0, 640, 384), rect(0, 384, 320, 96), rect(320, 384, 320, 96)]),
        Row(layout: CompositionLayout(.horizontalPresentation), canvas: vga, streams: [plain], cells: [rect(0, 0, 640, 480)]),
        // custom: focus large
        Row(layout: CompositionLayout(.custom, stylesheet: "stream.focus { width: 100%; }"), canvas: hd, streams: [plain, focus, plain],
            cells: [rect(0, 576, 640, 144), rect(0, 0, 1280, 576), rect(640, 576, 640, 144)]),
        Row(layout: CompositionLayout(.custom, stylesheet: "stream.focus {}"), canvas: hd, streams: [plain, plain],
            cells: [rect(0, 0, 640, 720), rect(640, 0, 640, 720)]),
        // bestFit with a screen share shown as pip
        Row(layout: CompositionLayout(.bestFit, screenshareType: .pip), canvas: hd, streams: [plain, plain, screen],
            cells: [rect(920, 500, 320, 180), rect(560, 500, 320, 180), rect(0, 0, 1280, 720)]),
        Row(layout: CompositionLayout(.bestFit, screenshareType: .pip), canvas: hd, streams: [plain, plain],
            cells: [rect(0, 0, 640, 720), rect(640, 0, 640, 720)]),
    ]

    @Test(arguments: rows.indices)
    func cells(_ index: Int) {
        let row = Self.rows[index]
        let cells = LayoutMath.cells(for: row.streams, layout: row.layout, canvas: row.canvas)
        #expect(cells == row.cells, "\(row)")
        for cell in cells {
            #expect(cell.x % 2 == 0 && cell.y % 2 == 0 && cell.width % 2 == 0 && cell.height % 2 == 0, "\(row): \(cell)")
            #expect(cell.x >= 0 && cell.y >= 0 && cell.x + cell.width <= row.canvas.width && cell.y + cell.height <= row.canvas.height)
        }
    }

    @Test func everyLayoutKeepsEveryStreamOnEveryCanvas() {
        for canvas in CanvasResolution.supported {
            for kind in CompositionLayout.Kind.allCases {
                let layout = CompositionLayout(kind, stylesheet: kind == .custom ? "stream.focus {}" : nil)
                for count in 1...16 {
                    let streams = (0..<count).map { LayoutStream(isFocus: kind == .custom && $0 == count - 1) }
                    let cells = LayoutMath.cells(for: streams, layout: layout, canvas: canvas)
                    #expect(cells.count == count)
                    #expect(cells.allSatisfy { !$0.isEmpty && $0.x + $0.width <= canvas.width && $0.y + $0.height <= canvas.height },
                            "\(kind) \(canvas) ×\(count): \(cells)")
                }
            }
        }
        #expect(LayoutMath.cells(for: [], layout: .standard, canvas: Self.hd).isEmpty)
    }

    @Test func gridShapes() {
        let shapes = [1: (1, 1), 2: (2, 1), 3: (2, 2), 4: (2, 2), 5: (3, 2), 6: (3, 2), 7: (3, 3), 9: (3, 3), 10: (4, 3),
                      12: (4, 3), 13: (4, 4), 16: (4, 4), 17: (5, 4), 26: (6, 5)]
        for (count, shape) in shapes {
            let got = LayoutMath.gridShape(count: count)
            #expect(got.columns == shape.0 && got.rows == shape.1, "\(count)")
        }
    }

    @Test func fittingKeepsAspectAndCentres() {
        // 4:3 into a tall cell: letterboxed top and bottom.
        #expect(Self.rect(0, 0, 640, 720).fitting(sourceWidth: 640, sourceHeight: 480) == Self.rect(0, 120, 640, 480))
        // 4:3 into 16:9: pillarboxed.
        #expect(Self.rect(0, 0, 1280, 720).fitting(sourceWidth: 640, sourceHeight: 480) == Self.rect(160, 0, 960, 720))
        // 16:9 into 4:3.
        #expect(Self.rect(0, 0, 640, 480).fitting(sourceWidth: 1280, sourceHeight: 720) == Self.rect(0, 60, 640, 360))
        // Same aspect: the cell itself; odd results are made even.
        #expect(Self.rect(640, 360, 640, 360).fitting(sourceWidth: 320, sourceHeight: 180) == Self.rect(640, 360, 640, 360))
        #expect(Self.rect(920, 500, 320, 180).fitting(sourceWidth: 640, sourceHeight: 480) == Self.rect(960, 500, 240, 180))
        #expect(Self.rect(0, 0, 100, 100).fitting(sourceWidth: 0, sourceHeight: 0) == Self.rect(0, 0, 100, 100))
    }

    @Test func drawOrderPutsSmallOnTop() {
        let cells = LayoutMath.cells(for: [Self.plain, Self.plain, Self.plain], layout: CompositionLayout(.pip), canvas: Self.hd)
        #expect(LayoutMath.drawOrder(cells) == [0, 1, 2])
        let focused = LayoutMath.cells(for: [Self.plain, Self.focus], layout: CompositionLayout(.pip), canvas: Self.hd)
        #expect(LayoutMath.drawOrder(focused) == [1, 0])
    }

    @Test func resolutionsParse() {
        #expect(CanvasResolution(parsing: "1280x720") == CanvasResolution(width: 1280, height: 720))
        #expect(CanvasResolution(parsing: "1080x1920")?.isPortrait == true)
        for bad in ["", "1280", "1281x720", "x", "640x480x1", "99999999x1", "-640x480", "640X480"] {
            #expect(CanvasResolution(parsing: bad) == nil, "\(bad)")
        }
        #expect(CanvasResolution.supported.count == 6)
    }

    @Test func layoutsParse() throws {
        #expect(try CompositionLayout.parse(type: "pip", stylesheet: nil, screenshareType: nil).get() == CompositionLayout(.pip))
        let custom = try CompositionLayout.parse(type: "custom", stylesheet: "stream.focus {}", screenshareType: nil).get()
        #expect(custom.kind == .custom && custom.stylesheet == "stream.focus {}")
        let share = try CompositionLayout.parse(type: "bestFit", stylesheet: nil, screenshareType: "horizontalPresentation").get()
        #expect(share.screenshareType == .horizontalPresentation)
        let bad: [(String?, String?, String?)] = [(nil, nil, nil), ("grid", nil, nil), ("custom", nil, nil), ("custom", "", nil),
                                                  ("pip", nil, "bestFit"), ("bestFit", nil, "custom"), ("bestFit", nil, "nope")]
        for (type, stylesheet, screenshare) in bad {
            if case .success = CompositionLayout.parse(type: type, stylesheet: stylesheet, screenshareType: screenshare) {
                Issue.record("accepted \(String(describing: type)) \(String(describing: stylesheet)) \(String(describing: screenshare))")
            }
        }
    }
}
