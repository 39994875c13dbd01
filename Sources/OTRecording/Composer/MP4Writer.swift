import CAVFormat
import Glibc

/// Encodes a composed archive and writes it as MP4: H.264 (libx264 through libavcodec,
/// preset `veryfast`, one keyframe a second, no B-frames, `threads` encoder threads, 0 for
/// x264's own count — always set, as libavcodec's libx264 wrapper defaults to x264's
/// count, not one) and AAC (libavcodec's native encoder, 48 kHz mono, 1,024-sample frames).
///
/// Written incrementally as **fragmented MP4** (`frag_keyframe+empty_moov+default_base_moof`):
/// a fragment closes at each keyframe (every second) and is flushed to the file, so a
/// process killed mid-archive leaves a file that plays up to its last fragment; `finish`
/// flushes the encoders and writes the trailer (the fragment index).
///
/// Failures (libx264 missing, cannot create, ENOSPC…) throw `RecordingError` with the
/// system's words. Cost: two encoders and one muxer; per video frame x264's encode of the
/// canvas, per 1,024 audio samples an AAC frame. One thread.
final class MP4Writer {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var videoCodec: UnsafeMutablePointer<AVCodecContext>?
    private var audioCodec: UnsafeMutablePointer<AVCodecContext>?
    private var videoFrame: UnsafeMutablePointer<AVFrame>?
    private var audioFrame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var videoIndex: Int32 = -1
    private var audioIndex: Int32 = -1
    private var headerWritten = false
    private var pendingAudio = 0
    private var audioFrameSize = 1024
    private var audioPts: Int64 = 0
    let path: String
    /// Video frames and audio frames handed to the muxer.
    private(set) var videoPackets = 0
    private(set) var audioPackets = 0

    /// Audio sample rate of the file.
    static let sampleRate = 48_000

    /// Creates `path` and writes the header. `video` nil: no video track; `audio` false: no audio track.
    init(path: String, video: (width: Int, height: Int, frameRate: Int, bitrate: Int)?, audio: Bool,
         audioBitrate: Int = 96_000, threads: Int = 0) throws(RecordingError) {
        self.path = path
        av_log_set_level(AV_LOG_QUIET)
        var created: UnsafeMutablePointer<AVFormatContext>?
        var status = avformat_alloc_output_context2(&created, nil, "mp4", path)
        guard status >= 0, let context = created else { throw WebMWriter.error("creating the MP4 muxer", status) }
        self.context = context
        packet = av_packet_alloc()
        let globalHeader = (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0
        if let video {
            guard let codec = avcodec_find_encoder_by_name("libx264") else {
                throw RecordingError("libavcodec has no libx264 encoder (Debian's libavcodec59 has it)")
            }
            guard let encoder = avcodec_alloc_context3(codec) else { throw RecordingError("out of memory for the H.264 encoder") }
            videoCodec = encoder
            encoder.pointee.width = Int32(video.width)
            encoder.pointee.height = Int32(video.height)
            encoder.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            encoder.pointee.time_base = AVRational(num: 1, den: Int32(video.frameRate))
            encoder.pointee.framerate = AVRational(num: Int32(video.frameRate), den: 1)
            encoder.pointee.gop_size = Int32(video.frameRate)
            encoder.pointee.max_b_frames = 0
            encoder.pointee.bit_rate = Int64(video.bitrate)
            if globalHeader { encoder.pointee.flags |= cav_codec_flag_global_header() }
            var options: OpaquePointer?
            av_dict_set(&options, "preset", "veryfast", 0)
            av_dict_set(&options, "threads", "\(max(0, threads))", 0)
            status = avcodec_open2(encoder, codec, &options)
            av_dict_free(&options)
            guard status >= 0 else { throw WebMWriter.error("opening the H.264 encoder", status) }
            guard let stream = avformat_new_stream(context, nil) else { throw RecordingError("libavformat could not add the video track") }
            avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
            stream.pointee.time_base = encoder.pointee.time_base
            videoIndex = stream.pointee.index
            guard let frame = av_frame_alloc() else { throw RecordingError("out of memory for the canvas") }
            videoFrame = frame
            frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            frame.pointee.width = Int32(video.width)
            frame.pointee.height = Int32(video.height)
            status = av_frame_get_buffer(frame, 0)
            guard status >= 0 else { throw WebMWriter.error("allocating the canvas", status) }
        }
        if audio {
            guard let codec = avcodec_find_encoder_by_name("aac") else { throw RecordingError("libavcodec has no AAC encoder") }
            guard let encoder = avcodec_alloc_context3(codec) else { throw RecordingError("out of memory for the AAC encoder") }
            audioCodec = encoder
            encoder.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            encoder.pointee.sample_rate = Int32(Self.sampleRate)
            cav_set_context_channels(encoder, 1)
            encoder.pointee.bit_rate = Int64(audioBitrate)
            encoder.pointee.time_base = AVRational(num: 1, den: Int32(Self.sampleRate))
            if globalHeader { encoder.pointee.flags |= cav_codec_flag_global_header() }
            status = avcodec_open2(encoder, codec, nil)
            guard status >= 0 else { throw WebMWriter.error("opening the AAC encoder", status) }
            guard let stream = avformat_new_stream(context, nil) else { throw RecordingError("libavformat could not add the audio track") }
            avcodec_parameters_from_context(stream.pointee.codecpar, encoder)
            stream.pointee.time_base = encoder.pointee.time_base
            audioIndex = stream.pointee.index
            audioFrameSize = max(1, Int(encoder.pointee.frame_size))
            guard let frame = av_frame_alloc() else { throw RecordingError("out of memory for the audio frame") }
            audioFrame = frame
            frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            frame.pointee.nb_samples = Int32(audioFrameSize)
            frame.pointee.sample_rate = Int32(Self.sampleRate)
            av_channel_layout_copy(&frame.pointee.ch_layout, &encoder.pointee.ch_layout)
            status = av_frame_get_buffer(frame, 0)
            guard status >= 0 else { throw WebMWriter.error("allocating the audio frame", status) }
        }
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
        status = avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
        guard status >= 0 else { throw WebMWriter.error("creating \(path)", status) }
        var options: OpaquePointer?
        av_dict_set(&options, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0)
        status = avformat_write_header(context, &options)
        av_dict_free(&options)
        guard status >= 0 else { throw WebMWriter.error("writing the MP4 header to \(path)", status) }
        headerWritten = true
        try checkIO("writing the MP4 header to \(path)")
    }

    deinit { close() }

    /// True when the file has a video track.
    var hasVideo: Bool { videoIndex >= 0 }
    /// True when the file has an audio track.
    var hasAudio: Bool { audioIndex >= 0 }

    /// Lets `paint` draw the next canvas (the previous picture's pixels are still there,
    /// unless the encoder kept that buffer) and encodes it as frame `index` (1/frameRate units).
    func encodeVideo(index: Int64, _ paint: (CanvasPlanes) -> Void) throws(RecordingError) {
        guard let encoder = videoCodec, let frame = videoFrame else { return }
        let status = av_frame_make_writable(frame)
        guard status >= 0 else { throw WebMWriter.error("making the canvas writable", status) }
        let planes = CanvasPlanes(y: frame.pointee.data.0!, u: frame.pointee.data.1!, v: frame.pointee.data.2!,
                                  strideY: Int(frame.pointee.linesize.0), strideU: Int(frame.pointee.linesize.1),
                                  strideV: Int(frame.pointee.linesize.2), width: Int(frame.pointee.width),
                                  height: Int(frame.pointee.height))
        paint(planes)
        frame.pointee.pts = index
        try send(frame, to: encoder, stream: videoIndex)
    }

    /// Queues `count` mono 48 kHz samples; each full 1,024-sample frame is encoded.
    func writeAudio(_ samples: UnsafePointer<Int16>, count: Int) throws(RecordingError) {
        guard let encoder = audioCodec, let frame = audioFrame else { return }
        var offset = 0
        while offset < count {
            if pendingAudio == 0 {
                let status = av_frame_make_writable(frame)
                guard status >= 0 else { throw WebMWriter.error("making the audio frame writable", status) }
            }
            let plane = UnsafeMutableRawPointer(frame.pointee.data.0!).assumingMemoryBound(to: Float.self)
            let run = min(count - offset, audioFrameSize - pendingAudio)
            for index in 0..<run { plane[pendingAudio + index] = Float(samples[offset + index]) / 32_768 }
            pendingAudio += run
            offset += run
            if pendingAudio == audioFrameSize {
                frame.pointee.pts = audioPts
                audioPts += Int64(audioFrameSize)
                pendingAudio = 0
                try send(frame, to: encoder, stream: audioIndex)
            }
        }
    }

    /// Pads and encodes the last audio frame, drains both encoders, writes the trailer and
    /// closes the file.
    func finish() throws(RecordingError) {
        guard let context else { return }
        defer { close() }
        if pendingAudio > 0, let encoder = audioCodec, let frame = audioFrame {
            let plane = UnsafeMutableRawPointer(frame.pointee.data.0!).assumingMemoryBound(to: Float.self)
            (plane + pendingAudio).update(repeating: 0, count: audioFrameSize - pendingAudio)
            frame.pointee.pts = audioPts
            audioPts += Int64(audioFrameSize)
            pendingAudio = 0
            try send(frame, to: encoder, stream: audioIndex)
        }
        if let encoder = videoCodec { try send(nil, to: encoder, stream: videoIndex) }
        if let encoder = audioCodec { try send(nil, to: encoder, stream: audioIndex) }
        if headerWritten {
            headerWritten = false
            let status = av_write_trailer(context)
            guard status >= 0 else { throw WebMWriter.error("finishing \(path)", status) }
            try checkIO("finishing \(path)")
        }
    }

    /// Frees everything without writing more (after a failure, or after `finish`).
    func close() {
        if let context {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
            self.context = nil
        }
        if videoCodec != nil { avcodec_free_context(&videoCodec) }
        if audioCodec != nil { avcodec_free_context(&audioCodec) }
        if videoFrame != nil { av_frame_free(&videoFrame) }
        if audioFrame != nil { av_frame_free(&audioFrame) }
        if packet != nil { av_packet_free(&packet) }
    }

    /// Sends `frame` (nil: flush) to `encoder` and writes every packet it gives.
    private func send(_ frame: UnsafeMutablePointer<AVFrame>?, to encoder: UnsafeMutablePointer<AVCodecContext>,
                      stream: Int32) throws(RecordingError) {
        guard let context, let packet else { throw RecordingError("the recording file is closed") }
        var status = avcodec_send_frame(encoder, frame)
        guard status >= 0 || status == cav_averror_eof() else { throw WebMWriter.error("encoding", status) }
        while true {
            status = avcodec_receive_packet(encoder, packet)
            if status == cav_averror_eagain() || status == cav_averror_eof() { break }
            guard status >= 0 else { throw WebMWriter.error("encoding", status) }
            packet.pointee.stream_index = stream
            av_packet_rescale_ts(packet, encoder.pointee.time_base, context.pointee.streams[Int(stream)]!.pointee.time_base)
            if stream == videoIndex { videoPackets += 1 } else { audioPackets += 1 }
            status = av_interleaved_write_frame(context, packet)
            av_packet_unref(packet)
            guard status >= 0 else { throw WebMWriter.error("writing to \(path)", status) }
            try checkIO("writing to \(path)")
        }
    }

    private func checkIO(_ what: String) throws(RecordingError) {
        guard let context else { return }
        let status = cav_io_error(context)
        if status < 0 { throw WebMWriter.error(what, status) }
    }
}
