import OTMedia

/// gst-launch pipeline builders for the GStreamer side of the interop tests: a receiver
/// that decodes what OTKit sends into files the readers check (`DecodedVideoSummary`,
/// `DecodedAudioSummary`), and a sender that streams OTKit's test pattern (a Y4M file)
/// and a tone for OTKit to decode. See ../shared/reference/interop.md section 1.
///
/// Shape (one UDP port per SSRC: srtpdec needs `ssrc=(uint)N` in its caps and cannot
/// learn keys for new SSRCs under gst-launch, so video and audio use separate ports):
///   receiver: udpsrc (caps with key) → srtpdec → rtpbin (jitter buffer, RTCP) →
///             rtpvp8depay → vp8dec → I420 → [identity eos-after] → filesink;
///             rtpopusdepay → opusdec → S16LE 48 kHz → wavenc → filesink.
///   sender:   filesrc → y4mdec → vp8enc (realtime) → rtpvp8pay → [rtpbin for SR] →
///             srtpenc → udpsink; audiotestsrc or a WAV → opusenc → rtpopuspay → …
/// Senders pace in real time with `udpsink sync=true` (their sources are files).
/// `srtp: nil` means plain RTP. Cost: string building only.
enum GStreamerPipelines {
    /// One VP8 stream to receive.
    struct VideoReceive: Sendable {
        /// The UDP port (RTP, and RTCP too when `rtcpMux`; else RTCP on port + 1).
        var port: UInt16
        /// The sender's SSRC (srtpdec needs it in its caps; rtpbin names its pad by it).
        var ssrc: UInt32
        /// The RTP payload type of VP8.
        var payloadType: UInt8 = 96
        /// Where decoded raw I420 frames are appended (read with `I420FileReader`).
        var outputPath: String
        /// Write at most this many decoded frames (`identity eos-after`); the branch ends
        /// when one more frame arrives, so a sender of exactly this many frames still
        /// needs `GStreamerPeer.stop()`. nil keeps decoding until the pipeline is stopped.
        var frameLimit: Int? = nil
        /// Send this session's RTCP receiver reports to this port on 127.0.0.1 (SRTCP under
        /// the same key); nil sends none. Can make the exit on SIGINT slower.
        var reportPort: UInt16? = nil
    }

    /// One Opus stream to receive.
    struct AudioReceive: Sendable {
        /// The UDP port (RTP, and RTCP too when `rtcpMux`; else RTCP on port + 1).
        var port: UInt16
        /// The sender's SSRC.
        var ssrc: UInt32
        /// The RTP payload type of Opus.
        var payloadType: UInt8 = 111
        /// Where the decoded audio goes: a 16-bit 48 kHz WAV (read with `DecodedAudioSummary`).
        var outputPath: String
        /// Channels written to the WAV (1 or 2).
        var channels: Int = 2
        /// As `VideoReceive.reportPort`.
        var reportPort: UInt16? = nil
    }

    /// The VP8 stream to send.
    struct VideoSend: Sendable {
        /// Destination port on `host`.
        var port: UInt16
        /// The SSRC to send with.
        var ssrc: UInt32
        /// The RTP payload type.
        var payloadType: UInt8 = 96
        /// The Y4M file to encode (e.g. written by `TestPatternY4M.write`); its frame rate paces the stream.
        var y4mPath: String
        /// vp8enc's target bitrate in bits per second.
        var bitrate: Int = 1_500_000
        /// The longest gap between keyframes, in frames (so a late receiver recovers).
        var keyframeMaxDistance: Int = 30
        /// rtpvp8pay's MTU: the largest RTP packet in bytes.
        var mtu: Int = 1200
    }

    /// What the audio sender plays.
    enum AudioInput: Sendable {
        /// A sine tone (audiotestsrc) of this frequency and length.
        case tone(frequency: Double, seconds: Double)
        /// A WAV file (any PCM format wavparse reads; converted to 48 kHz).
        case wavFile(String)
    }

    /// The Opus stream to send.
    struct AudioSend: Sendable {
        /// Destination port on `host`.
        var port: UInt16
        /// The SSRC to send with.
        var ssrc: UInt32
        /// The RTP payload type.
        var payloadType: UInt8 = 111
        /// What to play.
        var input: AudioInput = .tone(frequency: 440, seconds: 5)
        /// opusenc's bitrate in bits per second.
        var bitrate: Int = 64_000
        /// Channels encoded (1 or 2).
        var channels: Int = 2
    }

    /// A receiver for `video` and/or `audio`, protected with `srtp` (nil: plain RTP).
    /// - Parameters:
    ///   - rtcpMux: RTCP arrives on the RTP port (RFC 5761) rather than port + 1.
    ///   - latencyMilliseconds: rtpbin's jitter-buffer latency.
    /// It ends by itself only for video alone with a `frameLimit` that the sender exceeds;
    /// otherwise stop it with `GStreamerPeer.stop()` (SIGINT → EOS finalizes the WAV).
    static func receiver(video: VideoReceive?, audio: AudioReceive?, srtp: SRTPKeyMaterial?,
                         rtcpMux: Bool = true, latencyMilliseconds: Int = 200) -> GStreamerPipeline {
        precondition(video != nil || audio != nil, "a receiver needs a stream")
        let keys = srtp.map(GStreamerSRTPParameters.init)
        var text = GStreamerPipelineText()
        var ports: [UInt16] = []
        text.add("rtpbin name=rb latency=\(latencyMilliseconds)")
        func input(session: Int, port: UInt16, ssrc: UInt32, rtpCaps: String, reportPort: UInt16?) {
            ports.append(port)
            if !rtcpMux { ports.append(port + 1) }
            let source = "udpsrc address=127.0.0.1 port=\(port) reuse=false buffer-size=2097152"
            let rtcpSource = "udpsrc address=127.0.0.1 port=\(port + 1) reuse=false"
            if let keys {
                let decoder = "srtpdec\(session)"
                text.add("srtpdec name=\(decoder)")
                text.add("\(source) caps=\"application/x-srtp,\(rtpCaps),ssrc=(uint)\(ssrc),\(keys.capsFields)\" ! \(decoder).rtp_sink")
                if !rtcpMux {
                    text.add("\(rtcpSource) caps=\"application/x-srtcp,ssrc=(uint)\(ssrc),\(keys.capsFields)\" ! \(decoder).rtcp_sink")
                }
                text.add("\(decoder).rtp_src ! rb.recv_rtp_sink_\(session) \(decoder).rtcp_src ! rb.recv_rtcp_sink_\(session)")
            } else {
                text.add("\(source) caps=\"application/x-rtp,\(rtpCaps)\" ! rb.recv_rtp_sink_\(session)")
                if !rtcpMux {
                    text.add("\(rtcpSource) caps=\"application/x-rtcp\" ! rb.recv_rtcp_sink_\(session)")
                }
            }
            if let reportPort {
                let sink = "udpsink host=127.0.0.1 port=\(reportPort) sync=false async=false"
                if let keys {
                    text.add("srtpenc name=rrenc\(session) \(keys.encoderProperties)")
                    text.add("rb.send_rtcp_src_\(session) ! rrenc\(session).rtcp_sink_0 rrenc\(session).rtcp_src_0 ! \(sink)")
                } else {
                    text.add("rb.send_rtcp_src_\(session) ! \(sink)")
                }
            }
        }
        if let video {
            checkPath(video.outputPath)
            input(session: 0, port: video.port, ssrc: video.ssrc,
                  rtpCaps: "media=(string)video,clock-rate=(int)90000,encoding-name=(string)VP8,payload=(int)\(video.payloadType)",
                  reportPort: video.reportPort)
            // identity eos-after=N passes N-1 buffers on GStreamer 1.22 (interop.md), hence + 1.
            let limit = video.frameLimit.map { "! identity eos-after=\($0 + 1) " } ?? ""
            text.add("rb.recv_rtp_src_0_\(video.ssrc)_\(video.payloadType) ! rtpvp8depay ! vp8dec ! video/x-raw,format=I420 "
                + "\(limit)! filesink location=\(video.outputPath) sync=false async=false")
        }
        if let audio {
            checkPath(audio.outputPath)
            input(session: 1, port: audio.port, ssrc: audio.ssrc,
                  rtpCaps: "media=(string)audio,clock-rate=(int)48000,encoding-name=(string)OPUS,payload=(int)\(audio.payloadType)",
                  reportPort: audio.reportPort)
            text.add("rb.recv_rtp_src_1_\(audio.ssrc)_\(audio.payloadType) ! rtpopusdepay ! opusdec ! audioconvert ! audioresample "
                + "! audio/x-raw,format=S16LE,rate=48000,channels=\(audio.channels) ! wavenc ! filesink location=\(audio.outputPath) sync=false async=false")
        }
        return GStreamerPipeline(text: text.text, listeningPorts: ports)
    }

    /// A sender of `video` and/or `audio` to `host`, protected with `srtp` (nil: plain RTP).
    /// - Parameters:
    ///   - senderReports: put rtpbin in the path so RTCP SRs (and SDES, BYE) go out too,
    ///     on the RTP port when `rtcpMux`, else port + 1. Off by default: with rtpbin,
    ///     gst-launch often never exits after EOS, so the run ends at the
    ///     `GStreamerPeer.wait` deadline instead.
    /// Without `senderReports` it exits by itself once every input has been sent.
    static func sender(video: VideoSend?, audio: AudioSend?, srtp: SRTPKeyMaterial?, host: String = "127.0.0.1",
                       senderReports: Bool = false, rtcpMux: Bool = true) -> GStreamerPipeline {
        precondition(video != nil || audio != nil, "a sender needs a stream")
        let keys = srtp.map(GStreamerSRTPParameters.init)
        var text = GStreamerPipelineText()
        if senderReports { text.add("rtpbin name=rb") }
        func output(session: Int, payloader: String, port: UInt16) {
            let rtpSink = "udpsink host=\(host) port=\(port) sync=true"
            guard senderReports else {
                text.add(keys.map { "\(payloader) ! srtpenc \($0.encoderProperties) ! \(rtpSink)" } ?? "\(payloader) ! \(rtpSink)")
                return
            }
            let rtcpSink = "udpsink host=\(host) port=\(rtcpMux ? port : port + 1) sync=false async=false"
            text.add("\(payloader) ! rb.send_rtp_sink_\(session)")
            if let keys {
                let encoder = "srtpenc\(session)"
                text.add("srtpenc name=\(encoder) \(keys.encoderProperties)")
                text.add("rb.send_rtp_src_\(session) ! \(encoder).rtp_sink_0 \(encoder).rtp_src_0 ! \(rtpSink)")
                text.add("rb.send_rtcp_src_\(session) ! \(encoder).rtcp_sink_0 \(encoder).rtcp_src_0 ! \(rtcpSink)")
            } else {
                text.add("rb.send_rtp_src_\(session) ! \(rtpSink) rb.send_rtcp_src_\(session) ! \(rtcpSink)")
            }
        }
        if let video {
            checkPath(video.y4mPath)
            output(session: 0, payloader: "filesrc location=\(video.y4mPath) ! y4mdec ! videoconvert ! video/x-raw,format=I420 "
                + "! vp8enc deadline=1 end-usage=cbr target-bitrate=\(video.bitrate) keyframe-max-dist=\(video.keyframeMaxDistance) "
                + "error-resilient=default ! rtpvp8pay pt=\(video.payloadType) ssrc=\(video.ssrc) picture-id-mode=15-bit mtu=\(video.mtu)",
                port: video.port)
        }
        if let audio {
            let source: String
            switch audio.input {
            case .tone(let frequency, let seconds):
                // 960 samples = 20 ms per buffer at 48 kHz.
                source = "audiotestsrc wave=sine freq=\(frequency) volume=0.5 samplesperbuffer=960 num-buffers=\(Int((seconds * 50).rounded()))"
            case .wavFile(let path):
                checkPath(path)
                source = "filesrc location=\(path) ! wavparse"
            }
            output(session: 1, payloader: "\(source) ! audioconvert ! audioresample ! audio/x-raw,rate=48000,channels=\(audio.channels) "
                + "! opusenc bitrate=\(audio.bitrate) frame-size=20 ! rtpopuspay pt=\(audio.payloadType) ssrc=\(audio.ssrc)",
                port: audio.port)
        }
        return GStreamerPipeline(text: text.text, listeningPorts: [])
    }

    /// Paths become single gst-launch tokens: they must not contain spaces or quotes.
    private static func checkPath(_ path: String) {
        precondition(!path.contains(" ") && !path.contains("\""), "GStreamer pipeline paths must not contain spaces or quotes: \(path)")
    }
}
