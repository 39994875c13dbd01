/// Why an offer or answer that parsed cannot be negotiated, and what OpenTok code signaling
/// sends for it.
///
/// - ``Side/publisherOffer``: a browser publisher's offer the router cannot answer →
///   `OTPublisherWebRTCError` (1610).
/// - ``Side/subscriberAnswer``: a browser subscriber's answer to the router's offer that
///   does not fit it → `OTSubscriberWebRTCError` (1600).
/// - ``Side/local``: the router's own transport values are unusable (a bug or bad
///   configuration, never the peer's fault) → `OTSessionInternalError` (2000).
///
/// SDP that does not parse at all is an ``SDPError`` (1011) instead.
public struct SDPNegotiationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Which negotiation step failed; decides ``openTokCode``.
    public enum Side: Sendable, Equatable {
        /// Answering a browser publisher's offer.
        case publisherOffer
        /// Reading a browser subscriber's answer.
        case subscriberAnswer
        /// Building from the router's own values.
        case local
    }

    /// What could not be negotiated.
    public enum Reason: Sendable, Equatable {
        /// No audio or video section could be accepted (no VP8 / Opus, no RTP section at all).
        case noAcceptableMedia
        /// An accepted section (or the session) has no `a=ice-ufrag` / `a=ice-pwd`.
        case missingICECredentials
        /// No `a=fingerprint` for an accepted section.
        case missingFingerprint
        /// A fingerprint hash other than sha-256/384/512, or of the wrong length.
        case unsupportedFingerprint(String)
        /// `a=setup` that leaves the router unable to be the DTLS server it must be
        /// (an offer's `passive` or `holdconn`, an answer's `passive` or `actpass`, or none).
        case unusableSetup(SDPSetupRole?)
        /// An accepted section without `a=rtcp-mux`.
        case rtcpMuxRequired
        /// Several sections accepted but not offered (or answered) in one BUNDLE group.
        case bundleRequired
        /// An accepted section without `a=mid` (unified plan needs one per section).
        case missingMid
        /// The answer's sections do not line up with the offer's (count, kind, mid).
        case answerDoesNotMatchOffer
        /// The answer uses a payload type the offer did not have (or none of them).
        case payloadTypeNotOffered
        /// The answer's direction for a section is not one an answer to `sendonly` may have.
        case unexpectedDirection(SDPDirection)
        /// The router's own transport value `field` is invalid (ufrag/pwd charset or length,
        /// an empty candidate list, a fingerprint that is not sha-256).
        case invalidLocalTransport(field: String)
    }

    /// The negotiation step that failed.
    public let side: Side
    /// What could not be negotiated.
    public let reason: Reason
    /// The section concerned, when one is.
    public let mid: String?

    /// An error for `reason` on `side`, about section `mid` if given.
    public init(_ side: Side, _ reason: Reason, mid: String? = nil) {
        self.side = side
        self.reason = reason
        self.mid = mid
    }

    /// The OpenTok code for this failure: 1610 for a publisher's offer, 1600 for a
    /// subscriber's answer, 2000 for the router's own values.
    public var openTokCode: Int {
        switch side {
        case .publisherOffer: return 1610
        case .subscriberAnswer: return 1600
        case .local: return 2000
        }
    }

    /// A sentence a person can act on.
    public var description: String {
        let whose: String
        switch side {
        case .publisherOffer: whose = "publisher offer"
        case .subscriberAnswer: whose = "subscriber answer"
        case .local: whose = "router transport"
        }
        let place = mid.map { " (mid \($0))" } ?? ""
        return "\(whose)\(place): \(reason)"
    }
}
