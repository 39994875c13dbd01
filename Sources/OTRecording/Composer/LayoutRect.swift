/// A rectangle on the canvas in pixels, origin top-left. Cost: a plain value.
public struct LayoutRect: Sendable, Hashable, CustomStringConvertible {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width.
    public var width: Int
    /// Height.
    public var height: Int

    /// A rectangle at (`x`, `y`) of `width` × `height`.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// True when it covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The largest rectangle of `sourceWidth:sourceHeight` aspect that fits inside this one,
    /// centred (letterboxed or pillarboxed), with even edges so I420 chroma lines up.
    /// A source with no size fills the rectangle. Cost: a few integer operations.
    public func fitting(sourceWidth: Int, sourceHeight: Int) -> LayoutRect {
        guard sourceWidth > 0, sourceHeight > 0, !isEmpty else { return self }
        var fitWidth = width
        var fitHeight = height
        if width * sourceHeight > height * sourceWidth {
            fitWidth = height * sourceWidth / sourceHeight
        } else {
            fitHeight = width * sourceHeight / sourceWidth
        }
        fitWidth = max(2, fitWidth & ~1)
        fitHeight = max(2, fitHeight & ~1)
        let left = (x + (width - fitWidth) / 2) & ~1
        let top = (y + (height - fitHeight) / 2) & ~1
        return LayoutRect(x: left, y: top, width: min(fitWidth, x + width - left), height: min(fitHeight, y + height - top))
    }

    /// `WxH+X+Y`, as ffmpeg's crop filter writes it.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
