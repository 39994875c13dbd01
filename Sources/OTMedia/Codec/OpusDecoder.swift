import COpus

/// An Opus decoder (libopus) that hands out pooled `AudioFrame`s, with packet-loss
/// concealment (PLC) and in-band FEC recovery.
///
/// Not thread-safe: use it from one thread at a time (`@unchecked Sendable` so a
/// pipeline can hand it to its thread). Cost: `init` allocates libopus's state and a
/// pool of frames with room for 120 ms each; decoding allocates nothing in steady state
/// (if the consumer holds every pooled frame, a fresh unpooled one is made).
public final class OpusDecoder: @unchecked Sendable {
    /// The decoder's output format (48 kHz, 1–2 channels, nominal frame length).
    public let format: AudioFormat

    private let decoder: OpaquePointer
    private let pool: RecyclingPool<AudioFrame>
    /// Samples per channel of the last frame decoded: a lost frame is taken to be as long.
    private var lastSamplesPerChannel: Int
    private var sequence: UInt64 = 0

    /// Frames the pool may make before decoding falls back to allocating.
    static let poolSize = 8

    /// Creates a decoder for `format`. Throws `invalidArgument` for an unsupported
    /// format and `codecFailure` if libopus cannot.
    public init(format: AudioFormat) throws(MediaError) {
        try format.validate()
        var error: Int32 = OPUS_OK
        guard let decoder = opus_decoder_create(Int32(format.sampleRate), Int32(format.channels), &error),
              error == OPUS_OK else {
            throw MediaError(.codecFailure, "libopus could not create a decoder for \(format): \(opusErrorText(error))")
        }
        self.decoder = decoder
        self.format = format
        self.lastSamplesPerChannel = format.samplesPerChannel
        let capacity = OpusFrameSizes.maximumSamplesPerChannel * format.channels
        self.pool = RecyclingPool(initialCount: 2, maximumCount: Self.poolSize) {
            AudioFrame(format: format, capacity: capacity)
        }
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Decodes a packet into a pooled frame of the decoder's format; `samplesPerChannel`
    /// is the packet's duration. An empty packet counts as lost (PLC).
    /// Throws `codecFailure` for a packet libopus rejects.
    public func decode(_ packet: UnsafeRawBufferPointer) throws(MediaError) -> AudioFrame {
        guard let bytes = packet.baseAddress, packet.count > 0 else {
            return try concealLoss(recoveringFrom: nil)
        }
        return try run(bytes, count: packet.count, maximumSamples: OpusFrameSizes.maximumSamplesPerChannel, fec: false)
    }

    /// A frame for a lost packet: FEC from `nextPacket` when given (the packet after the
    /// lost one), else PLC. Either way the frame is as long as the last decoded one, so
    /// the output stays continuous; decode `nextPacket` normally afterwards. If
    /// `nextPacket` carries no FEC data, libopus falls back to PLC.
    public func concealLoss(recoveringFrom nextPacket: UnsafeRawBufferPointer?) throws(MediaError) -> AudioFrame {
        let samples = lastSamplesPerChannel
        if let next = nextPacket, let bytes = next.baseAddress, next.count > 0 {
            return try run(bytes, count: next.count, maximumSamples: samples, fec: true)
        }
        return try run(nil, count: 0, maximumSamples: samples, fec: false)
    }

    private func run(_ bytes: UnsafeRawPointer?, count: Int, maximumSamples: Int, fec: Bool) throws(MediaError) -> AudioFrame {
        let frame = pool.take() ?? AudioFrame(format: format, capacity: OpusFrameSizes.maximumSamplesPerChannel * format.channels)
        frame.reshape(format)
        let decoded = opus_decode(decoder, bytes?.assumingMemoryBound(to: UInt8.self), Int32(clamping: count),
                                  frame.samples, Int32(maximumSamples), fec ? 1 : 0)
        guard decoded >= 0 else {
            throw MediaError(.codecFailure, "libopus could not decode a \(count)-byte packet: \(opusErrorText(decoded))")
        }
        frame.samplesPerChannel = Int(decoded)
        if bytes != nil, !fec { lastSamplesPerChannel = Int(decoded) }
        sequence &+= 1
        frame.sequence = sequence
        frame.timestampNanoseconds = 0
        return frame
    }
}
