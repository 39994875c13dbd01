/// The bounds ``SessionDescription/init(parsing:)`` enforces before it looks at a line.
///
/// SDP arrives over signaling from peers the router does not trust, so every size is capped
/// up front: the parser's memory and time are linear in the input and the input is at most
/// ``maximumBytes``. The caps are far above what browsers send (Chromium's three-layer
/// simulcast publisher offer is about 6 KiB and 130 lines; a subscriber of 40 streams
/// about 60 sections).
public enum SDPLimits {
    /// 64 KiB: the largest description accepted, counted in UTF-8 bytes.
    public static let maximumBytes = 65_536
    /// The most lines (of any type) in one description.
    public static let maximumLines = 4_096
    /// The longest line in bytes, without its line ending.
    public static let maximumLineLength = 1_024
    /// The most `m=` sections in one description.
    public static let maximumMediaSections = 128
}
