import CVPX

/// A realtime VP8 encoder (libvpx), configured like WebRTC's: CBR, no lag, 90 kHz
/// timestamps, one token partition, optional temporal layers.
///
/// Not thread-safe: use it from one thread at a time (it is `@unchecked Sendable` so a
/// pipeline can hand it to the thread that runs it).
///
/// Cost: `init` allocates libvpx's encoder (a few MB at VGA). `encode` allocates nothing:
/// it points a `vpx_image_t` at the frame's planes and hands libvpx's own packet buffer
/// to the callback. Rate and frame-rate changes reconfigure the live encoder; see
/// `setResolution` for size changes.
public final class VP8Encoder: @unchecked Sendable {
    /// The settings in force (updated by the `set…` methods).
    public private(set) var settings: VP8EncoderSettings

    private let codec: UnsafeMutablePointer<vpx_codec_ctx_t>
    private let config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>
    private let image: UnsafeMutablePointer<vpx_image_t>
    private var isOpen = false
    private var layers: VP8TemporalLayers
    /// libvpx refuses in-place sizes above the size it was created with.
    private var createdWidth = 0
    private var createdHeight = 0
    private var lastPts: Int64 = -1
    /// How often a settings change had to destroy and re-create the libvpx encoder.
    private(set) var recreationCount = 0

    /// libvpx's timebase: 90 kHz, the RTP video clock.
    static let ticksPerSecond: Int64 = 90_000

    /// Creates an encoder. Throws `invalidArgument` for settings out of range and
    /// `codecFailure` when libvpx refuses them.
    public init(settings: VP8EncoderSettings) throws(MediaError) {
        try settings.validate()
        self.settings = settings
        self.layers = VP8TemporalLayers(count: settings.temporalLayers)
        codec = .allocate(capacity: 1)
        codec.initialize(to: vpx_codec_ctx_t())
        config = .allocate(capacity: 1)
        config.initialize(to: vpx_codec_enc_cfg_t())
        image = .allocate(capacity: 1)
        image.initialize(to: vpx_image_t())
        let status = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), config, 0)
        guard status == VPX_CODEC_OK else {
            throw MediaError(.codecFailure, "libvpx has no default VP8 configuration: \(Self.describe(status))")
        }
        fillConfig()
        try open()
    }

    deinit {
        if isOpen { vpx_codec_destroy(codec) }
        codec.deallocate()
        config.deallocate()
        image.deallocate()
    }

    /// Encodes one frame and calls `output` with each compressed frame it yields (one per
    /// input frame in realtime mode), before returning.
    ///
    /// The frame must have the encoder's size (`setResolution` changes it). Its
    /// timestamp becomes the 90 kHz pts; timestamps that do not increase are nudged
    /// forward by one frame duration. `forceKeyframe` makes this frame a keyframe (and
    /// restarts the temporal pattern). Cost: the libvpx encode; nothing allocated.
    public func encode(_ frame: VideoFrame, forceKeyframe: Bool = false,
                       _ output: (EncodedVideoFrame) -> Void) throws(MediaError) {
        guard frame.width == settings.width, frame.height == settings.height else {
            throw MediaError(.invalidArgument,
                             "frame is \(frame.width)x\(frame.height) but the encoder is set to \(settings.width)x\(settings.height); call setResolution first")
        }
        cvpx_wrap_i420(image, UInt32(frame.width), UInt32(frame.height), frame.y, frame.u, frame.v,
                       Int32(frame.strideY), Int32(frame.strideUV))
        let duration = frameDuration
        var pts = Self.ticks(nanoseconds: frame.timestampNanoseconds)
        if pts <= lastPts { pts = lastPts + duration }
        lastPts = pts

        // Periodic keyframes come from libvpx itself (kf_max_dist = maxKeyframeInterval).
        let keyframe = forceKeyframe
        let frameConfig = layers.next(keyframe: keyframe)
        if layers.count > 1 {
            let status = cvpx_set_temporal_layer_id(codec, Int32(frameConfig.layer))
            guard status == VPX_CODEC_OK else { throw failure("setting the temporal layer", status) }
        }
        var flags = frameConfig.flags
        if keyframe { flags |= vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) }
        let status = vpx_codec_encode(codec, image, pts, UInt(duration), flags, UInt(VPX_DL_REALTIME))
        guard status == VPX_CODEC_OK else { throw failure("encoding a frame", status) }

        var iterator: vpx_codec_iter_t?
        while let packet = vpx_codec_get_cx_data(codec, &iterator) {
            var size = 0
            var packetFlags: vpx_codec_frame_flags_t = 0
            guard let bytes = cvpx_pkt_frame(packet, &size, &packetFlags) else { continue }
            let isKeyframe = packetFlags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0
            if isKeyframe {
                if !keyframe { layers.didEncodeKeyframe() }
            }
            output(EncodedVideoFrame(
                data: UnsafeRawBufferPointer(start: bytes, count: size),
                isKeyframe: isKeyframe,
                temporalLayer: isKeyframe ? 0 : frameConfig.layer,
                layerSync: isKeyframe || frameConfig.sync,
                isNonReference: !isKeyframe && frameConfig.nonReference,
                timestampNanoseconds: frame.timestampNanoseconds,
                width: settings.width, height: settings.height))
        }
    }

    /// Changes the target bitrate of the live encoder (and its split across temporal
    /// layers). Takes effect from the next frame; CBR converges within about a second
    /// (the 1000 ms rate buffer). Cost: one `vpx_codec_enc_config_set`.
    public func setBitrate(kbps: Int) throws(MediaError) {
        var next = settings
        next.bitrateKbps = kbps
        try next.validate()
        settings = next
        fillConfig()
        try applyConfig("changing the bitrate")
    }

    /// Changes the nominal frame rate: the duration given to each frame. libvpx's rate
    /// control also follows the frames' timestamps. Cost: arithmetic only.
    public func setFrameRate(_ fps: Double) throws(MediaError) {
        var next = settings
        next.frameRate = fps
        try next.validate()
        settings = next
    }

    /// Changes the picture size. Sizes up to the one the encoder was created with are
    /// set in place (`vpx_codec_enc_config_set`, which makes the next frame a
    /// keyframe); libvpx 1.12 refuses larger sizes in place ("Cannot increase width or
    /// height larger than their initial configured value"), so for those the encoder is
    /// destroyed and created again at the new size (its first frame is a keyframe too).
    /// The temporal pattern restarts either way. Cost: in place, a reallocation of
    /// libvpx's frame buffers; re-created, a full encoder set-up.
    public func setResolution(width: Int, height: Int) throws(MediaError) {
        guard width != settings.width || height != settings.height else { return }
        var next = settings
        next.width = width
        next.height = height
        try next.validate()
        settings = next
        fillConfig()
        layers.restart()
        if width <= createdWidth, height <= createdHeight,
           vpx_codec_enc_config_set(codec, config) == VPX_CODEC_OK {
            return
        }
        try reopen()
    }

    /// Changes the number of temporal layers (1...3) on the live encoder; if libvpx
    /// refuses the change in place the encoder is created again. The pattern restarts
    /// at TL0 with every upper layer syncing. Cost: one `vpx_codec_enc_config_set`.
    public func setTemporalLayers(_ n: Int) throws(MediaError) {
        var next = settings
        next.temporalLayers = n
        try next.validate()
        guard n != settings.temporalLayers else { return }
        settings = next
        layers = VP8TemporalLayers(count: n)
        fillConfig()
        if vpx_codec_enc_config_set(codec, config) == VPX_CODEC_OK { return }
        try reopen()
    }

    // MARK: - Set-up

    /// Nominal frame duration in 90 kHz ticks.
    private var frameDuration: Int64 {
        max(1, Int64((Double(Self.ticksPerSecond) / settings.frameRate).rounded()))
    }

    /// Nanoseconds to 90 kHz ticks, without overflowing for any UInt64.
    static func ticks(nanoseconds: UInt64) -> Int64 {
        let whole = nanoseconds / 1_000_000_000
        let rest = nanoseconds % 1_000_000_000
        return Int64(truncatingIfNeeded: whole &* 90_000 &+ rest * 9 / 100_000)
    }

    /// Writes `settings` into the libvpx configuration (WebRTC's realtime choices).
    private func fillConfig() {
        var c = config.pointee
        c.g_w = UInt32(settings.width)
        c.g_h = UInt32(settings.height)
        c.g_timebase = vpx_rational(num: 1, den: Int32(Self.ticksPerSecond))
        c.g_threads = UInt32(settings.threads)
        c.g_lag_in_frames = 0
        c.g_pass = VPX_RC_ONE_PASS
        c.g_error_resilient = settings.errorResilient ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        c.rc_end_usage = VPX_CBR
        c.rc_target_bitrate = UInt32(settings.bitrateKbps)
        c.rc_min_quantizer = 2
        c.rc_max_quantizer = 56
        c.rc_undershoot_pct = 100
        c.rc_overshoot_pct = 15
        c.rc_buf_initial_sz = 500
        c.rc_buf_optimal_sz = 600
        c.rc_buf_sz = 1000
        c.rc_dropframe_thresh = 0
        c.rc_resize_allowed = 0
        c.kf_mode = VPX_KF_AUTO
        c.kf_min_dist = 0
        c.kf_max_dist = UInt32(settings.maxKeyframeInterval)
        layers.configure(&c, totalKbps: settings.bitrateKbps)
        config.pointee = c
    }

    /// Creates the libvpx encoder from `config` and applies the per-codec controls.
    private func open() throws(MediaError) {
        let status = cvpx_vp8_enc_init(codec, config)
        guard status == VPX_CODEC_OK else {
            throw MediaError(.codecFailure, "libvpx refused the VP8 encoder settings \(settings.width)x\(settings.height) at \(settings.bitrateKbps) kbps: \(Self.describe(status)) \(Self.detail(codec))")
        }
        isOpen = true
        createdWidth = settings.width
        createdHeight = settings.height
        try check(cvpx_set_cpuused(codec, Int32(settings.cpuUsed)), "setting cpu-used")
        try check(cvpx_set_static_threshold(codec, 1), "setting the static threshold")
        try check(cvpx_set_token_partitions(codec, Int32(VP8_ONE_TOKENPARTITION.rawValue)), "setting token partitions")
        try check(cvpx_set_max_intra_bitrate_pct(codec, 900), "setting the keyframe size cap")
        try check(cvpx_set_noise_sensitivity(codec, 0), "setting noise sensitivity")
    }

    /// Destroys and re-creates the encoder with the current `config`.
    private func reopen() throws(MediaError) {
        if isOpen {
            vpx_codec_destroy(codec)
            isOpen = false
        }
        lastPts = -1
        recreationCount += 1
        try open()
    }

    private func applyConfig(_ what: String) throws(MediaError) {
        try check(vpx_codec_enc_config_set(codec, config), what)
    }

    private func check(_ status: vpx_codec_err_t, _ what: String) throws(MediaError) {
        guard status == VPX_CODEC_OK else { throw failure(what, status) }
    }

    private func failure(_ what: String, _ status: vpx_codec_err_t) -> MediaError {
        MediaError(.codecFailure, "libvpx failed \(what): \(Self.describe(status)) \(Self.detail(codec))")
    }

    static func describe(_ status: vpx_codec_err_t) -> String {
        String(cString: vpx_codec_err_to_string(status))
    }

    static func detail(_ codec: UnsafeMutablePointer<vpx_codec_ctx_t>) -> String {
        guard let detail = vpx_codec_error_detail(codec) else { return "" }
        return "(\(String(cString: detail)))"
    }
}
