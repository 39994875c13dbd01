/// The RTP identity of one media stream: its SSRC, payload type and clock rate, as both
/// ends must agree on them (signaling carries them in later issues).
public struct RTPStreamParameters: Sendable, Equatable {
    /// The stream's synchronization source.
    public var ssrc: UInt32
    /// The dynamic payload type (96 for VP8, 111 for Opus by convention).
    public var payloadType: UInt8
    /// The RTP clock rate (90 000 for video, 48 000 for Opus).
    public var clockRate: Int

    /// Parameters for one stream.
    public init(ssrc: UInt32, payloadType: UInt8, clockRate: Int) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.clockRate = clockRate
    }

    /// VP8 on payload type 96 at 90 kHz with a random SSRC.
    public static func vp8(ssrc: UInt32 = .random(in: 1...UInt32.max)) -> RTPStreamParameters {
        RTPStreamParameters(ssrc: ssrc, payloadType: 96, clockRate: 90_000)
    }

    /// Opus on payload type 111 at 48 kHz with a random SSRC.
    public static func opus(ssrc: UInt32 = .random(in: 1...UInt32.max)) -> RTPStreamParameters {
        RTPStreamParameters(ssrc: ssrc, payloadType: 111, clockRate: 48_000)
    }
}

/// SRTP keys of one leg: one set protects what this end sends, the other checks what it
/// receives (RTP and RTCP alike). Handed over by signaling (SDES style) or, later,
/// derived from a DTLS handshake; the pipelines do not care which.
public struct SRTPLegKeys: Sendable, Equatable {
    /// Keys for packets this end sends.
    public var send: SRTPKeyMaterial
    /// Keys for packets this end receives.
    public var receive: SRTPKeyMaterial

    /// A pair of key sets.
    public init(send: SRTPKeyMaterial, receive: SRTPKeyMaterial) {
        self.send = send
        self.receive = receive
    }

    /// The other end's view of the same leg: its send keys are our receive keys.
    public var reversed: SRTPLegKeys { SRTPLegKeys(send: receive, receive: send) }

    /// Fresh random keys for both directions.
    public static func random(profile: SRTPProfile = .default) -> SRTPLegKeys {
        SRTPLegKeys(send: .random(profile: profile), receive: .random(profile: profile))
    }
}
