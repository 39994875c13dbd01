import COpus

/// An Opus encoder (libopus) for VoIP: 48 kHz, mono or stereo, VBR.
///
/// Not thread-safe: use it from one thread at a time (`@unchecked Sendable` so a
/// pipeline can hand it to its thread). Cost: `init` allocates libopus's state (~30 KB);
/// `encode` allocates nothing and writes into the caller's buffer.
public final class OpusEncoder: @unchecked Sendable {
    /// The largest packet `encode` can write: 3 × 1275 bytes (RFC 6716's limit for a
    /// 120 ms packet). A buffer this big never overflows.
    public static let maximumPacketSize = 1275 * 3

    /// The settings in force (updated by the `set…` methods).
    public private(set) var settings: OpusEncoderSettings

    private let encoder: OpaquePointer

    /// Creates an encoder. Throws `invalidArgument` for settings out of range and
    /// `codecFailure` when libopus refuses them.
    public init(settings: OpusEncoderSettings) throws(MediaError) {
        try settings.validate()
        var error: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(Int32(settings.format.sampleRate), Int32(settings.format.channels),
                                                OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw MediaError(.codecFailure, "libopus could not create an encoder for \(settings.format): \(opusErrorText(error))")
        }
        self.encoder = encoder
        self.settings = settings
        try check(copus_enc_set_bitrate(encoder, Int32(settings.bitrate)), "setting the bitrate")
        try check(copus_enc_set_complexity(encoder, Int32(settings.complexity)), "setting the complexity")
        try check(copus_enc_set_inband_fec(encoder, settings.inbandFEC ? 1 : 0), "setting in-band FEC")
        try check(copus_enc_set_packet_loss_perc(encoder, Int32(settings.expectedLossPercent)), "setting the expected loss")
        try check(copus_enc_set_dtx(encoder, settings.dtx ? 1 : 0), "setting DTX")
        try check(copus_enc_set_vbr(encoder, 1), "turning VBR on")
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Samples per channel of codec delay (libopus's look-ahead): the decoded signal lags
    /// the input by this much.
    public var lookahead: Int {
        var samples: Int32 = 0
        _ = copus_enc_get_lookahead(encoder, &samples)
        return Int(samples)
    }

    /// Encodes one frame into `packet`; returns the packet length (bytes written).
    ///
    /// The frame must have the encoder's channel count and a duration Opus accepts
    /// (2.5–60 ms; normally the format's 10 or 20 ms). Size `packet` at
    /// `maximumPacketSize` to be safe. Throws `invalidArgument` for a wrong frame and
    /// `codecFailure` if libopus fails (e.g. the buffer is too small).
    public func encode(_ frame: AudioFrame, into packet: UnsafeMutableRawBufferPointer) throws(MediaError) -> Int {
        guard frame.format.channels == settings.format.channels else {
            throw MediaError(.invalidArgument, "frame has \(frame.format.channels) channels, the encoder \(settings.format.channels)")
        }
        guard OpusFrameSizes.isValid(samplesPerChannel: frame.samplesPerChannel) else {
            throw MediaError(.invalidArgument, "\(frame.samplesPerChannel) samples per channel is not an Opus frame size at 48 kHz")
        }
        guard let output = packet.baseAddress, packet.count > 0 else {
            throw MediaError(.invalidArgument, "the packet buffer is empty")
        }
        let written = opus_encode(encoder, frame.samples, Int32(frame.samplesPerChannel),
                                  output.assumingMemoryBound(to: UInt8.self), Int32(clamping: packet.count))
        guard written >= 0 else {
            throw MediaError(.codecFailure, "libopus could not encode a frame: \(opusErrorText(written))")
        }
        return Int(written)
    }

    /// Changes the target bitrate (bits/s, 6_000...510_000) from the next frame.
    /// Cost: one ctl call.
    public func setBitrate(_ bitsPerSecond: Int) throws(MediaError) {
        var next = settings
        next.bitrate = bitsPerSecond
        try next.validate()
        try check(copus_enc_set_bitrate(encoder, Int32(bitsPerSecond)), "setting the bitrate")
        settings = next
    }

    /// Changes the loss (0...100 %) the encoder protects against; with in-band FEC on,
    /// more loss means more redundancy. Cost: one ctl call.
    public func setExpectedLoss(percent: Int) throws(MediaError) {
        var next = settings
        next.expectedLossPercent = percent
        try next.validate()
        try check(copus_enc_set_packet_loss_perc(encoder, Int32(percent)), "setting the expected loss")
        settings = next
    }

    private func check(_ status: Int32, _ what: String) throws(MediaError) {
        guard status == OPUS_OK else {
            throw MediaError(.codecFailure, "libopus failed \(what): \(opusErrorText(status))")
        }
    }
}

/// Frame durations Opus accepts at 48 kHz.
enum OpusFrameSizes {
    /// The longest Opus frame, 120 ms at 48 kHz, in samples per channel.
    static let maximumSamplesPerChannel = 5760

    /// True for 2.5, 5, 10, 20, 40 or 60 ms at 48 kHz.
    static func isValid(samplesPerChannel n: Int) -> Bool {
        n == 120 || n == 240 || n == 480 || n == 960 || n == 1920 || n == 2880
    }
}

/// libopus's text for an error code.
func opusErrorText(_ code: Int32) -> String {
    String(cString: opus_strerror(code))
}
