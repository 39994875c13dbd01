import CYUV
import OTMedia

/// Writable I420 planes of a canvas (an encoder's input picture) and the drawing the
/// composer does on them: flat fills and libyuv scaling of a stream's picture into a
/// rectangle. Cost: a plain value of pointers; the drawing costs what libyuv costs.
struct CanvasPlanes {
    var y: UnsafeMutablePointer<UInt8>
    var u: UnsafeMutablePointer<UInt8>
    var v: UnsafeMutablePointer<UInt8>
    var strideY: Int
    var strideU: Int
    var strideV: Int
    var width: Int
    var height: Int

    /// A flat colour (Y, U, V) over `rect` (clipped to the canvas; even edges expected).
    func fill(_ rect: LayoutRect, y luma: UInt8, u cb: UInt8, v cr: UInt8) {
        let clipped = clip(rect)
        guard !clipped.isEmpty else { return }
        for row in clipped.y..<(clipped.y + clipped.height) {
            (y + row * strideY + clipped.x).update(repeating: luma, count: clipped.width)
        }
        let chromaX = clipped.x / 2
        let chromaWidth = (clipped.width + 1) / 2
        for row in (clipped.y / 2)..<((clipped.y + clipped.height + 1) / 2) {
            (u + row * strideU + chromaX).update(repeating: cb, count: chromaWidth)
            (v + row * strideV + chromaX).update(repeating: cr, count: chromaWidth)
        }
    }

    /// Scales `picture` into `rect` (libyuv `I420Scale`, box filter). Returns false if
    /// libyuv refused (the rectangle is then left as it was).
    @discardableResult
    func draw(_ picture: VideoFrame, into rect: LayoutRect) -> Bool {
        let clipped = clip(rect)
        guard !clipped.isEmpty, clipped == rect else { return false }
        let chromaOffsetU = (rect.y / 2) * strideU + rect.x / 2
        let chromaOffsetV = (rect.y / 2) * strideV + rect.x / 2
        let status = I420Scale(picture.y, Int32(picture.strideY), picture.u, Int32(picture.strideUV),
                               picture.v, Int32(picture.strideUV), Int32(picture.width), Int32(picture.height),
                               y + rect.y * strideY + rect.x, Int32(strideY), u + chromaOffsetU, Int32(strideU),
                               v + chromaOffsetV, Int32(strideV), Int32(rect.width), Int32(rect.height), kFilterBox)
        return status == 0
    }

    private func clip(_ rect: LayoutRect) -> LayoutRect {
        let left = max(0, rect.x)
        let top = max(0, rect.y)
        let right = min(width, rect.x + rect.width)
        let bottom = min(height, rect.y + rect.height)
        return LayoutRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }
}
