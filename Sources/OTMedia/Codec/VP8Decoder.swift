import CVPX
import Glibc

/// A VP8 decoder (libvpx) that hands out pictures as pooled I420 `VideoFrame`s.
///
/// Not thread-safe: use it from one thread at a time (`@unchecked Sendable` so a
/// pipeline can hand it to its thread). After a decode error the decoder stays usable:
/// later inter frames may fail too until the next keyframe (ask the sender for one).
///
/// Cost: `decode` runs libvpx's decoder and copies the picture (w·h·1.5 bytes) into a
/// frame from a `VideoFramePool`, which is re-created when the stream's size changes.
/// In steady state nothing is allocated, unless the consumer holds on to every pooled
/// frame (8), in which case a fresh, unpooled frame is made.
public final class VP8Decoder: @unchecked Sendable {
    private let codec: UnsafeMutablePointer<vpx_codec_ctx_t>
    private var pool: VideoFramePool?
    private var sequence: UInt64 = 0

    /// Frames each size's pool may make before decode falls back to allocating.
    static let poolSize = 8

    /// Creates a single-threaded VP8 decoder. Throws `codecFailure` if libvpx cannot.
    public init() throws(MediaError) {
        codec = .allocate(capacity: 1)
        codec.initialize(to: vpx_codec_ctx_t())
        let status = cvpx_vp8_dec_init(codec, 1)
        guard status == VPX_CODEC_OK else {
            // deinit still runs (every property is set) and destroys and frees `codec`;
            // vpx_codec_destroy on a context that failed to open only returns an error.
            throw MediaError(.codecFailure, "libvpx could not create a VP8 decoder: \(VP8Encoder.describe(status))")
        }
    }

    deinit {
        vpx_codec_destroy(codec)
        codec.deallocate()
    }

    /// Decodes one compressed frame; returns a pooled I420 frame (nil if the decoder
    /// produced no picture), stamped with `timestampNanoseconds`.
    ///
    /// Throws `codecFailure` for data libvpx rejects (garbage, truncation, an inter
    /// frame before any keyframe) and for frames decoded from corrupt references.
    public func decode(_ data: UnsafeRawBufferPointer, timestampNanoseconds: UInt64 = 0) throws(MediaError) -> VideoFrame? {
        guard let base = data.baseAddress, data.count > 0, data.count <= Int(UInt32.max) else {
            throw MediaError(.codecFailure, "an empty VP8 frame cannot be decoded")
        }
        let status = vpx_codec_decode(codec, base.assumingMemoryBound(to: UInt8.self), UInt32(data.count), nil, 0)
        guard status == VPX_CODEC_OK else {
            throw MediaError(.codecFailure, "libvpx could not decode a \(data.count)-byte VP8 frame: \(VP8Encoder.describe(status)) \(VP8Encoder.detail(codec))")
        }
        var iterator: vpx_codec_iter_t?
        var picture: VideoFrame?
        while let image = vpx_codec_get_frame(codec, &iterator) {
            picture = copy(image)
        }
        var corrupted: Int32 = 0
        if picture != nil, cvpx_get_frame_corrupted(codec, &corrupted) == VPX_CODEC_OK, corrupted != 0 {
            throw MediaError(.codecFailure, "the VP8 frame decoded from corrupt or missing references; wait for a keyframe")
        }
        picture?.timestampNanoseconds = timestampNanoseconds
        return picture
    }

    /// Copies libvpx's picture into a pooled frame of its size.
    private func copy(_ image: UnsafePointer<vpx_image_t>) -> VideoFrame {
        let width = Int(image.pointee.d_w)
        let height = Int(image.pointee.d_h)
        if pool?.width != width || pool?.height != height {
            pool = VideoFramePool(width: width, height: height, initialCount: 2, maximumCount: Self.poolSize)
        }
        let frame = pool?.take() ?? VideoFrame(width: width, height: height)
        copyPlane(image, Int32(VPX_PLANE_Y), to: frame.y, stride: frame.strideY, width: width, rows: height)
        copyPlane(image, Int32(VPX_PLANE_U), to: frame.u, stride: frame.strideUV, width: frame.chromaWidth, rows: frame.chromaHeight)
        copyPlane(image, Int32(VPX_PLANE_V), to: frame.v, stride: frame.strideUV, width: frame.chromaWidth, rows: frame.chromaHeight)
        sequence &+= 1
        frame.sequence = sequence
        return frame
    }

    private func copyPlane(_ image: UnsafePointer<vpx_image_t>, _ plane: Int32, to destination: UnsafeMutablePointer<UInt8>,
                           stride: Int, width: Int, rows: Int) {
        guard let source = cvpx_plane(image, plane) else { return }
        let sourceStride = Int(cvpx_stride(image, plane))
        for row in 0..<rows {
            memcpy(destination + row * stride, source + row * sourceStride, width)
        }
    }
}
