import CAVFormat
import Glibc

/// Writes VP8 frames and Opus packets, as received, into a WebM file with libavformat.
///
/// Tracks: VP8 (the size of the first keyframe; later size changes are legal in WebM and
/// players scale) and Opus with an OpusHead CodecPrivate (RFC 7845 §5.1: version 1, the
/// channel count, pre-skip 312, 48 kHz, gain 0, mapping family 0). Time base 1/1000.
/// Crash safety: clusters are closed at least every `clusterMilliseconds` and every
/// packet is flushed to the file descriptor, so a killed process leaves every closed
/// cluster on disk (the cues and duration are written by `finish`, which players do not
/// need to play what is there). Interleaving waits at most half a second for the other
/// track.
///
/// Failures (cannot create, ENOSPC, EFBIG…) throw `RecordingError` with the system's
/// words; after one the writer is unusable and `finish` only frees.
///
/// Cost: one libavformat context; per packet one copy into a libav buffer and a write(2).
/// One thread.
final class WebMWriter {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var videoStream: Int32 = -1
    private var audioStream: Int32 = -1
    private var headerWritten = false
    let path: String

    /// Creates `path` and writes the header. `videoSize` nil = no video track;
    /// `audioChannels` nil = no audio track.
    init(path: String, videoSize: (width: Int, height: Int)?, audioChannels: Int?, clusterMilliseconds: Int) throws(RecordingError) {
        self.path = path
        // libav's log is process-wide and goes to stderr; failures reach the caller as
        // RecordingError instead, so keep the router's output clean.
        av_log_set_level(AV_LOG_QUIET)
        var created: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_alloc_output_context2(&created, nil, "webm", path)
        guard status >= 0, let context = created else { throw Self.error("creating the WebM muxer", status) }
        self.context = context
        packet = av_packet_alloc()
        if let videoSize {
            guard let stream = avformat_new_stream(context, nil) else { throw RecordingError("libavformat could not add the video track") }
            let par = stream.pointee.codecpar!
            par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            par.pointee.codec_id = AV_CODEC_ID_VP8
            par.pointee.width = Int32(videoSize.width)
            par.pointee.height = Int32(videoSize.height)
            stream.pointee.time_base = AVRational(num: 1, den: 1000)
            videoStream = stream.pointee.index
        }
        if let audioChannels {
            guard let stream = avformat_new_stream(context, nil) else { throw RecordingError("libavformat could not add the audio track") }
            let par = stream.pointee.codecpar!
            par.pointee.codec_type = AVMEDIA_TYPE_AUDIO
            par.pointee.codec_id = AV_CODEC_ID_OPUS
            par.pointee.sample_rate = 48_000
            cav_set_channels(par, Int32(audioChannels))
            par.pointee.initial_padding = Int32(Self.preSkip)
            let head = Self.opusHead(channels: audioChannels)
            guard let extradata = av_mallocz(head.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
                throw RecordingError("out of memory for the Opus header")
            }
            head.withUnsafeBytes { extradata.copyMemory(from: $0.baseAddress!, byteCount: head.count) }
            par.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
            par.pointee.extradata_size = Int32(head.count)
            stream.pointee.time_base = AVRational(num: 1, den: 1000)
            audioStream = stream.pointee.index
        }
        // Bounded interleaving: a silent track holds the other back at most 0.5 s.
        context.pointee.max_interleave_delta = 500_000
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
        status = avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
        guard status >= 0 else { throw Self.error("creating \(path)", status) }
        var options: OpaquePointer?
        av_dict_set(&options, "cluster_time_limit", String(max(100, clusterMilliseconds)), 0)
        status = avformat_write_header(context, &options)
        av_dict_free(&options)
        guard status >= 0 else { throw Self.error("writing the WebM header to \(path)", status) }
        headerWritten = true
        try checkIO("writing the WebM header to \(path)")
    }

    deinit { close() }

    /// Opus pre-skip in 48 kHz samples (what libopus encoders delay by).
    static let preSkip = 312

    /// The 19-byte OpusHead (RFC 7845 §5.1).
    static func opusHead(channels: Int) -> [UInt8] {
        var head: [UInt8] = Array("OpusHead".utf8)
        head.append(1)  // version
        head.append(UInt8(channels))
        head.append(UInt8(preSkip & 0xFF)); head.append(UInt8(preSkip >> 8))
        let rate: UInt32 = 48_000
        for shift in stride(from: 0, to: 32, by: 8) { head.append(UInt8((rate >> UInt32(shift)) & 0xFF)) }
        head.append(0); head.append(0)  // output gain
        head.append(0)  // channel mapping family 0 (mono/stereo)
        return head
    }

    /// True when the file has a video track.
    var hasVideo: Bool { videoStream >= 0 }
    /// True when the file has an audio track.
    var hasAudio: Bool { audioStream >= 0 }

    /// Writes one VP8 frame or Opus packet at `milliseconds` (file time).
    func write(_ track: RecordingTrack, _ data: UnsafeRawBufferPointer, milliseconds: Int64, keyframe: Bool) throws(RecordingError) {
        guard let context, let packet else { throw RecordingError("the recording file is closed") }
        let index = track == .video ? videoStream : audioStream
        guard index >= 0, data.count > 0 else { return }
        var status = av_new_packet(packet, Int32(data.count))
        guard status >= 0 else { throw Self.error("allocating a packet", status) }
        packet.pointee.data.update(from: data.baseAddress!.assumingMemoryBound(to: UInt8.self), count: data.count)
        packet.pointee.stream_index = index
        let timeBase = context.pointee.streams[Int(index)]!.pointee.time_base
        let pts = av_rescale_q(milliseconds, AVRational(num: 1, den: 1000), timeBase)
        packet.pointee.pts = pts
        packet.pointee.dts = pts
        if keyframe || track == .audio { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        status = av_interleaved_write_frame(context, packet)
        av_packet_unref(packet)
        guard status >= 0 else { throw Self.error("writing to \(path)", status) }
        try checkIO("writing to \(path)")
    }

    /// Writes what is buffered, the cues and the duration, and closes the file.
    func finish() throws(RecordingError) {
        guard let context else { return }
        defer { close() }
        if headerWritten {
            let status = av_write_trailer(context)
            headerWritten = false
            guard status >= 0 else { throw Self.error("finishing \(path)", status) }
            try checkIO("finishing \(path)")
        }
    }

    /// Frees everything without writing (after a failure).
    func close() {
        if let context {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
            self.context = nil
        }
        if packet != nil { av_packet_free(&packet) }
    }

    /// Throws when the I/O layer recorded a failed write (avio keeps the first error).
    private func checkIO(_ what: String) throws(RecordingError) {
        guard let context else { return }
        let status = cav_io_error(context)
        if status < 0 { throw Self.error(what, status) }
    }

    /// A `RecordingError` saying `what` failed with libav's text for `status`.
    static func error(_ what: String, _ status: Int32) -> RecordingError {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(status, &buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return RecordingError("\(what) failed: \(text)")
    }
}
