/// The ranges the numbers in a client message must fall in. `SignalingCodec` checks them
/// as it decodes, so a router never converts or multiplies a number a client made up
/// (`preferredFrameRate: 1e300` used to trap in the SFU); a message outside them is
/// refused with ``SignalingDecodingError/outOfRange(_:)``, which the router answers with
/// OpenTok's `OTNullOrInvalidParameter` (1011). Clients clamp to the same ranges before
/// they send (`clampedFrameRate`, `clampedDimension`).
///
/// Browser SDP text (`publish.sdpOffer`, `subscriberAnswer.sdp`) is not checked here: a
/// whole message is at most ``SignalingCodec/maximumMessageBytes`` (64 KiB, the same as
/// ``SDPLimits/maximumBytes``), and the router parses the text with ``SDPLimits`` (line
/// length, line and section counts) and answers what it refuses with 1500 / 1600, counted
/// as `sdpRejected`, so a bad SDP is an SDP refusal rather than a malformed message.
public enum ClientMessageLimits {
    /// The largest video width or height, pixels (VP8 codes 14 bits: 16383).
    public static let maximumDimension = 16_384
    /// The largest preferred frame rate, frames per second.
    public static let maximumFrameRate: Double = 1_000

    /// Throws `.outOfRange` naming the first number of `message` outside its range.
    /// Numbers the router clamps itself (`simulcastLayers`) or checks with a message of its
    /// own (a relayed leg's `port`) pass. O(1).
    static func check(_ message: ClientMessage) throws(SignalingDecodingError) {
        switch message {
        case .publish(let request):
            try dimension(request.videoWidth, "publish.videoWidth")
            try dimension(request.videoHeight, "publish.videoHeight")
        case .streamChanged(let change):
            if let width = change.videoWidth { try dimension(width, "streamChanged.videoWidth") }
            if let height = change.videoHeight { try dimension(height, "streamChanged.videoHeight") }
        case .subscriberPreferences(let preferences):
            if let width = preferences.preferredWidth { try dimension(width, "subscriberPreferences.preferredWidth") }
            if let height = preferences.preferredHeight { try dimension(height, "subscriberPreferences.preferredHeight") }
            if let rate = preferences.preferredFrameRate, !(rate >= 0 && rate <= maximumFrameRate) {
                // Written as a negated range test so NaN fails it too.
                throw .outOfRange("subscriberPreferences.preferredFrameRate must be 0...\(Int(maximumFrameRate)), not \(rate)")
            }
        case .signal(let request):
            if let id = request.id, id < 1 { throw .outOfRange("signal.id must be at least 1, not \(id)") }
        case .connect(let request):
            if let seq = request.eventSeq, seq < 0 { throw .outOfRange("connect.eventSeq must not be negative, not \(seq)") }
        case .acknowledgeEvents(let through):
            guard through >= 0 else { throw .outOfRange("ack.eventSeq must not be negative, not \(through)") }
        default:
            break
        }
    }

    /// Throws `.outOfRange` unless `value` is 0...`maximumDimension`.
    private static func dimension(_ value: Int, _ field: String) throws(SignalingDecodingError) {
        guard (0...maximumDimension).contains(value) else { throw .outOfRange("\(field) must be 0...\(maximumDimension), not \(value)") }
    }

    /// A frame rate an app set, as a client sends it: nil (no preference) when it is not
    /// a positive number, at most `maximumFrameRate`. O(1).
    public static func clampedFrameRate(_ rate: Double) -> Double? {
        guard rate > 0 else { return nil }  // NaN fails this too
        return min(rate, maximumFrameRate)
    }

    /// A width or height an app set, as a client sends it: nil (no preference) when not
    /// positive, at most `maximumDimension`. O(1).
    public static func clampedDimension(_ value: Int) -> Int? {
        value > 0 ? min(value, maximumDimension) : nil
    }
}
