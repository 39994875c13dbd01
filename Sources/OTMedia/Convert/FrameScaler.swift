import CYUV

/// Resizes I420 frames with libyuv's `I420Scale` (SIMD), for resolution ladders and
/// simulcast layers.
///
/// Stateless; cost: one pass over source and destination, no allocation.
public enum FrameScaler {
    /// How pixels are resampled; better filters cost more CPU.
    public enum Filter: Sendable, Hashable {
        /// Nearest neighbour: fastest, blocky.
        case nearest
        /// Bilinear interpolation: fast, good for small ratios.
        case bilinear
        /// Box averaging: best when scaling down by large ratios.
        case box
    }

    /// Scales `source` into `destination`, whose size (set with `reshape`) is the target
    /// size. Copies the timestamp and sequence number. Throws `invalidArgument` if libyuv
    /// refuses the sizes.
    public static func scale(_ source: VideoFrame, into destination: VideoFrame, filter: Filter = .box) throws(MediaError) {
        let mode: FilterMode
        switch filter {
        case .nearest: mode = kFilterNone
        case .bilinear: mode = kFilterBilinear
        case .box: mode = kFilterBox
        }
        let status = I420Scale(source.y, Int32(source.strideY), source.u, Int32(source.strideUV),
                               source.v, Int32(source.strideUV), Int32(source.width), Int32(source.height),
                               destination.y, Int32(destination.strideY), destination.u, Int32(destination.strideUV),
                               destination.v, Int32(destination.strideUV), Int32(destination.width), Int32(destination.height),
                               mode)
        guard status == 0 else {
            throw MediaError(.invalidArgument, "libyuv could not scale \(source.width)x\(source.height) to \(destination.width)x\(destination.height)")
        }
        destination.timestampNanoseconds = source.timestampNanoseconds
        destination.sequence = source.sequence
    }

    /// Takes a frame from `pool` (whose size is the target) and scales `source` into it;
    /// nil when the pool has no free frame.
    public static func scale(_ source: VideoFrame, from pool: VideoFramePool, filter: Filter = .box) throws(MediaError) -> VideoFrame? {
        guard let destination = pool.take() else { return nil }
        try scale(source, into: destination, filter: filter)
        return destination
    }
}
