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
