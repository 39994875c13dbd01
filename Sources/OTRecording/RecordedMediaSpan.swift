import CAVFormat
import Glibc

/// How much media a recorded file holds, read back with libavformat: the span from its
/// first to its last packet end, over all tracks. Used after a crash, when a recording's
/// own summary was never made (a WebM written incrementally has no duration in its
/// header, so every packet is read). Cost: one demux of the whole file (no decoding).
public enum RecordedMediaSpan {
    /// The media seconds in `path` (first packet's start to last packet's end), or nil when
    /// libavformat cannot open it or it holds no packet with a time.
    public static func seconds(_ path: String) -> Double? {
        av_log_set_level(AV_LOG_QUIET)
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&context, path, nil, nil) >= 0, context != nil else { return nil }
        defer { avformat_close_input(&context) }
        guard let opened = context, avformat_find_stream_info(opened, nil) >= 0 else { return nil }
        guard let packet = av_packet_alloc() else { return nil }
        var holder: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&holder) }
        var first = Double.infinity, last = -Double.infinity
        while av_read_frame(opened, packet) >= 0 {
            defer { av_packet_unref(packet) }
            let index = Int(packet.pointee.stream_index)
            guard index >= 0, index < Int(opened.pointee.nb_streams), let stream = opened.pointee.streams[index] else { continue }
            let base = stream.pointee.time_base
            guard base.den > 0, packet.pointee.pts != Int64.min else { continue }  // AV_NOPTS_VALUE
            let unit = Double(base.num) / Double(base.den)
            let start = Double(packet.pointee.pts) * unit
            let end = start + Double(max(0, packet.pointee.duration)) * unit
            first = min(first, start)
            last = max(last, end)
        }
        return last >= first ? last - first : nil
    }
}
