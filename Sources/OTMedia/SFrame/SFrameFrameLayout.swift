/// Which leading bytes of an encoded frame stay in the clear when OTKit applies SFrame
/// to media, and are authenticated as SFrame metadata instead (the layout Chrome's and
/// LiveKit's frame cryptors use, so a browser's `RTCRtpScriptTransform` can produce it):
///
/// - VP8: the payload header — 10 bytes of a keyframe (3-byte frame tag, start code,
///   width and height), 3 of a delta frame (the frame tag). The router's keyframe
///   detection (the tag's P bit) and the receiver's depacketizer read these bytes, so
///   they work unchanged; the rest of the frame (every coefficient and mode) is
///   ciphertext.
/// - Opus: none. Audio levels travel in an RTP header extension and nothing on the path
///   reads the TOC byte; leaving it clear would show the codec mode (speech or music,
///   bandwidth) for no gain.
///
/// On the wire a frame is `clear ‖ SFrame header ‖ ciphertext ‖ tag`, with AAD =
/// SFrame header ‖ clear bytes. Cost: free.
public enum SFrameFrameLayout: Sendable {
    /// Clear bytes at the start of a VP8 keyframe.
    public static let vp8KeyframeClearBytes = 10
    /// Clear bytes at the start of a VP8 delta frame.
    public static let vp8DeltaClearBytes = 3
    /// Clear bytes at the start of an Opus packet.
    public static let opusClearBytes = 0

    /// The clear prefix of the VP8 frame `frame` (plain or encrypted: the first byte is
    /// the clear frame tag either way; its P bit is 0 on keyframes), never more than the
    /// frame holds. Free.
    @inline(__always)
    public static func vp8ClearBytes(_ frame: UnsafeRawBufferPointer) -> Int {
        guard frame.count > 0 else { return 0 }  // a load, not `first`: no generic path on the per-frame path
        return min(frame.count, frame.load(as: UInt8.self) & 0x01 == 0 ? vp8KeyframeClearBytes : vp8DeltaClearBytes)
    }
}
