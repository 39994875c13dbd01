import OTMedia

/// An error as OpenTok reports it: a domain, OpenTok's numeric code in that domain, and
/// a message a person can act on. Returned synchronously by calls and passed to the
/// delegates' `didFailWithError` methods. Cost: a value with one string.
public struct OTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which object the error is about.
    public let domain: OTErrorDomain
    /// OpenTok's code in `domain` (see `OTSessionErrorCode` and its siblings).
    public let code: Int32
    /// What went wrong and what would fix it.
    public let message: String

    /// A session error.
    public init(_ code: OTSessionErrorCode, _ message: String) {
        self.domain = .session
        self.code = code.rawValue
        self.message = message
    }

    /// A publisher error.
    public init(_ code: OTPublisherErrorCode, _ message: String) {
        self.domain = .publisher
        self.code = code.rawValue
        self.message = message
    }

    /// A subscriber error.
    public init(_ code: OTSubscriberErrorCode, _ message: String) {
        self.domain = .subscriber
        self.code = code.rawValue
        self.message = message
    }

    /// An error with a raw code in `domain` (router codes OTKit has no case for keep their number).
    init(domain: OTErrorDomain, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// A publisher-domain error with an OpenTok number the publisher enum has no case
    /// for (1015, 1113: the reference reports synchronous publish errors in this domain).
    init(publisherCode code: Int32, _ message: String) { self.init(domain: .publisher, code: code, message: message) }

    /// A subscriber-domain error with a number the subscriber enum has no case for.
    init(subscriberCode code: Int32, _ message: String) { self.init(domain: .subscriber, code: code, message: message) }

    /// The session code, when this is a session error.
    public var sessionCode: OTSessionErrorCode? { domain == .session ? OTSessionErrorCode(rawValue: code) : nil }
    /// The publisher code, when this is a publisher error.
    public var publisherCode: OTPublisherErrorCode? { domain == .publisher ? OTPublisherErrorCode(rawValue: code) : nil }
    /// The subscriber code, when this is a subscriber error.
    public var subscriberCode: OTSubscriberErrorCode? { domain == .subscriber ? OTSubscriberErrorCode(rawValue: code) : nil }

    /// "OTSessionErrorDomain 1004: <message>".
    public var description: String { "\(domain.rawValue) \(code): \(message)" }

    /// A publisher error for an engine failure, keeping the engine's message: a media
    /// path failure (socket, sending) is OpenTok's WebRTC error (1610); a device, codec
    /// or file failure is an internal error (2000).
    public init(publishing error: MediaError) {
        switch error.code {
        case .networkFailure: self.init(OTPublisherErrorCode.webRTCError, error.message)
        default: self.init(OTPublisherErrorCode.internalError, error.message)
        }
    }

    /// A subscriber error for an engine failure, keeping its message: media path
    /// failures are WebRTC errors (1600), decoder and other failures internal (2000).
    public init(subscribing error: MediaError) {
        switch error.code {
        case .networkFailure: self.init(OTSubscriberErrorCode.webRTCError, error.message)
        default: self.init(OTSubscriberErrorCode.internalError, error.message)
        }
    }
}
