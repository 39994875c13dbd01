/// The sender SSRC of an SRTP or SRTCP datagram, read from the header that both keep in the
/// clear: RTP's at bytes 8-11, RTCP's at 4-7. Lets a receiver pick (or refuse) the SRTP
/// stream before unprotecting. Cost: four byte loads; nil when the datagram is too short.
public enum SenderSSRC {
    /// The SSRC of `bytes`, an (S)RTCP datagram when `isRTCP`, else (S)RTP.
    @inline(__always)
    public static func read(_ bytes: UnsafeRawBufferPointer, isRTCP: Bool) -> UInt32? {
        let offset = isRTCP ? 4 : 8
        guard bytes.count >= offset + 4 else { return nil }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
