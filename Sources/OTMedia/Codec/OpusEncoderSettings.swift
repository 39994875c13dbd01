/// How an `OpusEncoder` encodes: format, bitrate, complexity and loss protection.
///
/// Defaults: 48 kHz mono 20 ms, 32 kbit/s VBR, complexity 10, no FEC, no DTX.
/// Cost: a plain value.
public struct OpusEncoderSettings: Sendable, Equatable {
    /// Sample rate (48 kHz), channels (1–2) and frame length (10 or 20 ms).
    public var format: AudioFormat
    /// Target bitrate in bits/s, 6_000...510_000.
    public var bitrate: Int = 32_000
    /// Encoder effort, 0 (fastest) ... 10 (best).
    public var complexity: Int = 10
    /// In-band forward error correction: each packet also carries a low-rate copy of the
    /// previous frame, which `OpusDecoder.concealLoss(recoveringFrom:)` can use.
    public var inbandFEC: Bool = false
    /// The loss the encoder should protect against, 0...100 % (drives how much FEC it adds).
    public var expectedLossPercent: Int = 0
    /// Discontinuous transmission: near-empty packets during silence.
    public var dtx: Bool = false

    /// Settings for `format` with the defaults above.
    public init(format: AudioFormat = .mono20ms) {
        self.format = format
    }

    /// Throws `MediaError.invalidArgument` naming the first field out of range.
    public func validate() throws(MediaError) {
        try format.validate()
        guard (6_000...510_000).contains(bitrate) else {
            throw MediaError(.invalidArgument, "Opus bitrate \(bitrate) bit/s is out of range; use 6000...510000")
        }
        guard (0...10).contains(complexity) else {
            throw MediaError(.invalidArgument, "Opus complexity \(complexity) is out of range; use 0...10")
        }
        guard (0...100).contains(expectedLossPercent) else {
            throw MediaError(.invalidArgument, "expected loss \(expectedLossPercent) % is out of range; use 0...100")
        }
    }
}
