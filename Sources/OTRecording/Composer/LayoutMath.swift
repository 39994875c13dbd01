/// The rectangles of a composed archive's layout: pure functions of the layout, the
/// streams (in publish order) and the canvas, so they are tested by tables and the
/// acceptance test can check where each stream must appear.
///
/// Rules (OpenTok's layouts as documented; the exact proportions are this router's):
/// - `bestFit`: a grid of equal cells, columns × rows 1×1, 2×1, 2×2 (3–4), 3×2 (5–6),
///   3×3 (7–9), 4×3 (10–12), 4×4 (13–16), ⌈√n⌉ beyond; rows and columns swap on a portrait
///   canvas; an incomplete last row is centred.
/// - `pip`: the large stream fills the canvas; each other stream gets a quarter-size cell
///   (W/4 × H/4) in the bottom-right corner, a W/32 margin around it, further ones to its left.
/// - `verticalPresentation`: the large stream(s) in the left 4/5, the others in a column
///   in the right 1/5, stacked top to bottom in equal cells.
/// - `horizontalPresentation`: the large stream(s) in the top 4/5, the others in a row in
///   the bottom 1/5, left to right in equal cells.
/// - `custom`: streams with the "focus" class are large, the others small, arranged as
///   `horizontalPresentation`; with no focus stream, `bestFit`.
/// - The large stream of a presentation or pip layout is the focus stream(s), else the
///   first stream. `bestFit` with `screenshareType` uses that layout while a screen share
///   is present, the screen share(s) large.
/// Every edge is even (I420). A stream's picture is then fitted inside its cell with its
/// aspect kept (`LayoutRect.fitting`). Cost: O(n) arithmetic, one small array.
public enum LayoutMath {
    /// The cell of each stream (same order as `streams`) on `canvas`.
    public static func cells(for streams: [LayoutStream], layout: CompositionLayout, canvas: CanvasResolution) -> [LayoutRect] {
        let count = streams.count
        guard count > 0 else { return [] }
        let whole = LayoutRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        var kind = layout.kind
        var large: [Bool]
        if kind == .bestFit, let screenshare = layout.screenshareType, streams.contains(where: \.isScreenshare) {
            kind = screenshare
            large = streams.map(\.isScreenshare)
        } else if streams.contains(where: \.isFocus) {
            large = streams.map(\.isFocus)
        } else {
            large = streams.indices.map { $0 == 0 }
        }
        if kind == .custom {
            guard streams.contains(where: \.isFocus) else {
                return grid(count: count, in: whole, portrait: canvas.isPortrait)
            }
            kind = .horizontalPresentation
        }
        if kind == .bestFit { return grid(count: count, in: whole, portrait: canvas.isPortrait) }
        let largeIndices = streams.indices.filter { large[$0] }
        let smallIndices = streams.indices.filter { !large[$0] }
        var cells = [LayoutRect](repeating: LayoutRect(x: 0, y: 0, width: 0, height: 0), count: count)
        var largeArea = whole
        var smallCells: [LayoutRect] = []
        switch kind {
        case .pip:
            let width = even(canvas.width / 4)
            let height = even(canvas.height / 4)
            let margin = even(canvas.width / 32)
            for slot in smallIndices.indices {
                let x = canvas.width - (slot + 1) * (width + margin)
                smallCells.append(LayoutRect(x: max(0, x), y: canvas.height - margin - height, width: width, height: height))
            }
        case .verticalPresentation where !smallIndices.isEmpty:
            let column = even(canvas.width / 5)
            largeArea = LayoutRect(x: 0, y: 0, width: canvas.width - column, height: canvas.height)
            smallCells = strip(count: smallIndices.count,
                               in: LayoutRect(x: canvas.width - column, y: 0, width: column, height: canvas.height), vertical: true)
        case .horizontalPresentation where !smallIndices.isEmpty:
            let row = even(canvas.height / 5)
            largeArea = LayoutRect(x: 0, y: 0, width: canvas.width, height: canvas.height - row)
            smallCells = strip(count: smallIndices.count,
                               in: LayoutRect(x: 0, y: canvas.height - row, width: canvas.width, height: row), vertical: false)
        default:
            break
        }
        let largeCells = grid(count: largeIndices.count, in: largeArea, portrait: largeArea.height > largeArea.width)
        for (slot, index) in largeIndices.enumerated() { cells[index] = largeCells[slot] }
        for (slot, index) in smallIndices.enumerated() { cells[index] = smallCells[slot] }
        return cells
    }

    /// The order to draw the streams in: larger cells first, so pip's small pictures land on
    /// top of the large one; ties keep the streams' order.
    public static func drawOrder(_ cells: [LayoutRect]) -> [Int] {
        cells.indices.sorted { a, b in
            let areaA = cells[a].width * cells[a].height
            let areaB = cells[b].width * cells[b].height
            return areaA != areaB ? areaA > areaB : a < b
        }
    }

    /// bestFit's columns × rows for `count` cells on a landscape area.
    public static func gridShape(count: Int) -> (columns: Int, rows: Int) {
        switch count {
        case ...1: return (1, 1)
        case 2: return (2, 1)
        case 3...4: return (2, 2)
        case 5...6: return (3, 2)
        case 7...9: return (3, 3)
        case 10...12: return (4, 3)
        case 13...16: return (4, 4)
        default:
            var columns = 1
            while columns * columns < count { columns += 1 }
            return (columns, (count + columns - 1) / columns)
        }
    }

    /// `count` equal cells in a grid over `area` (rows and columns swapped when
    /// `portrait`), the incomplete last row centred.
    static func grid(count: Int, in area: LayoutRect, portrait: Bool) -> [LayoutRect] {
        guard count > 0 else { return [] }
        var (columns, rows) = gridShape(count: count)
        if portrait { swap(&columns, &rows) }
        let width = even(area.width / columns)
        let height = even(area.height / rows)
        let top = area.y + even((area.height - rows * height) / 2)
        var cells: [LayoutRect] = []
        for index in 0..<count {
            let row = index / columns
            let column = index % columns
            let inRow = min(columns, count - row * columns)
            let left = area.x + even((area.width - inRow * width) / 2)
            cells.append(LayoutRect(x: left + column * width, y: top + row * height, width: width, height: height))
        }
        return cells
    }

    /// `count` equal cells along a strip, top to bottom (`vertical`) or left to right.
    static func strip(count: Int, in area: LayoutRect, vertical: Bool) -> [LayoutRect] {
        guard count > 0 else { return [] }
        return (0..<count).map { index in
            if vertical {
                let height = even(area.height / count)
                return LayoutRect(x: area.x, y: area.y + index * height, width: area.width, height: height)
            }
            let width = even(area.width / count)
            return LayoutRect(x: area.x + index * width, y: area.y, width: width, height: area.height)
        }
    }

    @inline(__always)
    static func even(_ value: Int) -> Int { max(0, value) & ~1 }
}
