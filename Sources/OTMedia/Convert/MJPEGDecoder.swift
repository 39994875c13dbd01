import CTurboJPEG
import CYUV
import Glibc

/// Decodes one JPEG (an MJPEG camera frame) into an I420 `VideoFrame` with libturbojpeg.
///
/// The luma plane is always decoded straight into the frame. A 4:2:0 JPEG's chroma goes
/// straight into the frame too (no copy at all). Other subsamplings — 4:2:2, which most
/// webcams send, and 4:4:4, 4:4:0, 4:1:1 — decode their chroma into a scratch buffer made
/// once (and grown only if a bigger chroma layout ever arrives), then libyuv's
/// `ScalePlane` resamples it to 4:2:0 — the chroma half of what `I422ToI420` does,
/// without copying the luma plane a second time. Grayscale JPEGs get neutral chroma (128).
///
/// Uses the accurate integer DCT. libjpeg-turbo fills in the standard Huffman tables that
/// many UVC cameras leave out of their MJPEG frames. One thread at a time.
final class MJPEGDecoder {
    private let handle: tjhandle
    private var scratch: UnsafeMutableRawPointer?
    private var scratchCount = 0

    /// Creates the libturbojpeg decompressor. Cost: one small allocation inside libturbojpeg.
    init() throws(MediaError) {
        guard let handle = tjInitDecompress() else {
            throw MediaError(.codecFailure, "libturbojpeg could not create a decompressor")
        }
        self.handle = handle
    }

    deinit {
        tjDestroy(handle)
        free(scratch)
    }

    /// Decodes `jpeg` into `frame`, which must already have the JPEG's dimensions.
    /// Throws `malformedInput` for data that is not a JPEG of that size.
    func decode(_ jpeg: UnsafeRawBufferPointer, into frame: VideoFrame) throws(MediaError) {
        guard let base = jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), jpeg.count > 0 else {
            throw MediaError(.malformedInput, "empty MJPEG frame")
        }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(jpeg.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw MediaError(.malformedInput, "MJPEG frame is not a readable JPEG: \(errorText())")
        }
        guard Int(width) == frame.width, Int(height) == frame.height else {
            throw MediaError(.malformedInput, "MJPEG frame is \(width)x\(height), the stream is \(frame.width)x\(frame.height)")
        }
        if subsampling == Int32(TJSAMP_420.rawValue) {
            try run(base, jpeg.count, y: frame.y, strideY: frame.strideY, u: frame.u, v: frame.v,
                    strideUV: frame.strideUV, width: width, height: height)
            return
        }
        if subsampling == Int32(TJSAMP_GRAY.rawValue) {
            try run(base, jpeg.count, y: frame.y, strideY: frame.strideY, u: nil, v: nil,
                    strideUV: 0, width: width, height: height)
            SetPlane(frame.u, Int32(frame.strideUV), Int32(frame.chromaWidth), Int32(frame.chromaHeight), 128)
            SetPlane(frame.v, Int32(frame.strideUV), Int32(frame.chromaWidth), Int32(frame.chromaHeight), 128)
            return
        }
        let chromaWidth = tjPlaneWidth(1, width, subsampling)
        let chromaHeight = tjPlaneHeight(1, height, subsampling)
        guard chromaWidth > 0, chromaHeight > 0 else {
            throw MediaError(.malformedInput, "MJPEG frame has an unknown chroma subsampling (\(subsampling))")
        }
        let chromaStride = (Int(chromaWidth) + 31) & ~31
        let planeBytes = chromaStride * Int(chromaHeight)
        let chroma = scratchBuffer(count: 2 * planeBytes).assumingMemoryBound(to: UInt8.self)
        try run(base, jpeg.count, y: frame.y, strideY: frame.strideY, u: chroma, v: chroma + planeBytes,
                strideUV: chromaStride, width: width, height: height)
        ScalePlane(chroma, Int32(chromaStride), chromaWidth, chromaHeight,
                   frame.u, Int32(frame.strideUV), Int32(frame.chromaWidth), Int32(frame.chromaHeight), kFilterBilinear)
        ScalePlane(chroma + planeBytes, Int32(chromaStride), chromaWidth, chromaHeight,
                   frame.v, Int32(frame.strideUV), Int32(frame.chromaWidth), Int32(frame.chromaHeight), kFilterBilinear)
    }

    private func run(_ base: UnsafePointer<UInt8>, _ count: Int, y: UnsafeMutablePointer<UInt8>, strideY: Int,
                     u: UnsafeMutablePointer<UInt8>?, v: UnsafeMutablePointer<UInt8>?, strideUV: Int,
                     width: Int32, height: Int32) throws(MediaError) {
        let status = ctj_decompress_to_planes(handle, base, UInt(count), y, Int32(strideY), u, Int32(strideUV),
                                              v, Int32(strideUV), width, height, 0)
        // A warning (e.g. a frame cut short by the camera) still leaves a usable picture.
        if status != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
            throw MediaError(.malformedInput, "MJPEG frame could not be decoded: \(errorText())")
        }
    }

    private func scratchBuffer(count: Int) -> UnsafeMutableRawPointer {
        if let scratch, scratchCount >= count { return scratch }
        free(scratch)
        var pointer: UnsafeMutableRawPointer?
        precondition(posix_memalign(&pointer, 64, count) == 0 && pointer != nil, "out of memory for MJPEG scratch")
        scratch = pointer
        scratchCount = count
        return pointer!
    }

    private func errorText() -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }
}
