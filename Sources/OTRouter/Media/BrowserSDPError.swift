import OTSignaling

/// Why a browser's SDP leg was refused, and whose fault it was.
///
/// `.rejected` is the peer's SDP (does not parse, over ``SDPLimits``, cannot be negotiated,
/// an answer that does not fit the offer): signaling answers OpenTok's 1500 (publish) or
/// 1600 (`subscriberAnswer`) and counts it in `otkit_sdp_rejected_total`. `.tooManyPending`
/// is the router-wide cap on unanswered subscriber offers (1605, counted as a limit).
/// `.unavailable` is the router's side (no edge, the stream left, no socket): 1500 / 1604.
public struct BrowserSDPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whose fault, which decides the code.
    public enum Kind: Sendable, Equatable {
        /// The browser's SDP.
        case rejected
        /// `RouterLimits.pendingSDPOffers` offers wait for an answer already.
        case tooManyPending
        /// The router cannot serve it (no edge, unknown stream or subscriber, a leg failed).
        case unavailable
    }

    /// Whose fault.
    public let kind: Kind
    /// What was wrong, for the error reply and the log.
    public let message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// What `addBrowserPublisher` opened: the leg, the answer for the browser and what the
/// answer accepted.
public struct BrowserPublisherLeg: Sendable, Equatable {
    /// The leg (router transport, host, media port; the browser's SSRCs).
    public var leg: WireMediaLeg
    /// The router's SDP answer, as text.
    public var answer: String
    /// Whether an audio section was accepted.
    public var audio: Bool
    /// Whether a video section was accepted.
    public var video: Bool

    /// A leg with every field given.
    public init(leg: WireMediaLeg, answer: String, audio: Bool, video: Bool) {
        self.leg = leg
        self.answer = answer
        self.audio = audio
        self.video = video
    }
}
