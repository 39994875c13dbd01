/// The RTP header extension ids OTKit's clients and router use. There is no SDP to
/// negotiate them (the signaling fixes the session's shape), so they are constants of
/// the wire protocol, in the one-byte profile (RFC 8285 4.2: ids 1...14).
public enum RTPExtensionID {
    /// Transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01
    /// section 2): 2 bytes, big endian, on every RTP packet a sender sends on one
    /// transport (audio, video, retransmissions and padding share one counter). The
    /// receiver answers with RTCP transport-wide feedback (PT 205, FMT 15).
    public static let transportWideSequence: UInt8 = 3
}

/// Bandwidth probes: RTP packets that carry only padding (RFC 3550 5.1, P bit) and a
/// transport-wide sequence number, sent by a pacer to find out whether the path takes
/// more than the media needs now (draft-ietf-rmcat-gcc-02 leaves probing to the sender).
/// They have their own SSRC, so they never disturb a media stream's sequence numbers or
/// SRTP replay window. A receiver records their arrival for transport-wide feedback and
/// then drops them: they are never forwarded, decoded or counted as media.
public enum RTPProbe {
    /// Payload type of probe packets (dynamic range, RFC 3551 6; unused by OTKit's media).
    public static let payloadType: UInt8 = 127
    /// SSRC of probe packets on every leg.
    public static let ssrc: UInt32 = 0x4F54_4B50  // "OTKP"
}
