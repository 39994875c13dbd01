/// OpenTok's error domains: which object an `OTError` is about.
public enum OTErrorDomain: String, Sendable, CaseIterable {
    /// Session-level failures (`OTSessionErrorDomain`).
    case session = "OTSessionErrorDomain"
    /// Publisher failures (`OTPublisherErrorDomain`).
    case publisher = "OTPublisherErrorDomain"
    /// Subscriber failures (`OTSubscriberErrorDomain`).
    case subscriber = "OTSubscriberErrorDomain"
}

/// `OTSessionErrorCode`: the numbers are OpenTok's, so apps and logs can compare them
/// with the iOS and Linux SDKs' documentation.
public enum OTSessionErrorCode: Int32, Sendable, CaseIterable {
    /// No error.
    case success = 0
    /// Bad API key or token (`OTAuthorizationFailure`).
    case authorizationFailure = 1004
    /// The session id is invalid (`OTErrorInvalidSession`).
    case invalidSession = 1005
    /// The connection to the server failed (`OTConnectionFailed`).
    case connectionFailed = 1006
    /// The session is not connected (`OTNotConnected`).
    case notConnected = 1010
    /// A parameter is null or invalid (`OTNullOrInvalidParameter`).
    case nullOrInvalidParameter = 1011
    /// The call is not allowed in the session's current state (`OTSessionIllegalState`).
    case illegalState = 1015
    /// The session's state could not be set up (`OTSessionStateFailed`).
    case stateFailed = 1020
    /// Connecting timed out (`OTSessionConnectionTimeout`).
    case connectionTimeout = 1021
    /// The connection dropped (`OTConnectionDropped`).
    case connectionDropped = 1022
    /// The server refused the connection (`OTConnectionRefused`).
    case connectionRefused = 1023
    /// Connections from this country are blocked (`OTSessionBlockedCountry`).
    case blockedCountry = 1026
    /// The session has as many connections as it allows (`OTSessionConnectionLimitExceeded`).
    case connectionLimitExceeded = 1027
    /// No such subscriber (`OTSessionSubscriberNotFound`).
    case subscriberNotFound = 1112
    /// No such publisher (`OTSessionPublisherNotFound`).
    case publisherNotFound = 1113
    /// A relayed session is full (`OTP2PSessionMaxParticipants`).
    case p2pSessionMaxParticipants = 1403
    /// Signal data over 8 KB (`OTSessionSignalDataTooLong`).
    case signalDataTooLong = 1413
    /// Signal type not 1–128 of A–Z a–z 0–9 - _ ~ (`OTSessionInvalidSignalType`).
    case invalidSignalType = 1461
    /// The messaging server is unavailable (`OTNoMessagingServer`).
    case noMessagingServer = 1503
    /// The token's role may not force a disconnect (`OTSessionUnableToForceDisconnect`).
    case unableToForceDisconnect = 1520
    /// The token's role may not force a mute (`OTSessionUnableToForceMute`).
    case unableToForceMute = 1540
    /// The signal could not be sent (`OTSessionUnableToSendSignal`).
    case unableToSendSignal = 1550
    /// An internal error (`OTSessionInternalError`).
    case internalError = 2000
    /// End-to-end encryption needs a secret (`OTSessionEncryptionSecretMissing`).
    case encryptionSecretMissing = 6000
    /// The encryption secret is invalid (`OTSessionInvalidEncryptionSecret`).
    case invalidEncryptionSecret = 6004
}

/// `OTPublisherErrorCode`.
public enum OTPublisherErrorCode: Int32, Sendable, CaseIterable {
    /// No error.
    case success = 0
    /// The session disconnected (`OTSessionDisconnected`).
    case sessionDisconnected = 1010
    /// The media path failed (`OTPublisherWebRTCError`; OTKit: a socket or send failure).
    case webRTCError = 1610
    /// An internal error, e.g. the camera or encoder failed (`OTPublisherInternalError`).
    case internalError = 2000
    /// Encryption failed internally (`OTPublisherEncryptionInternalError`).
    case encryptionInternalError = 6001
    /// The codec does not support end-to-end encryption (`EncryptionUnsupportedCodec`).
    case encryptionUnsupportedCodec = 6005
    /// The scalability mode is invalid (`OTPublisherInvalidScalabilityMode`).
    case invalidScalabilityMode = 6006
}

/// `OTSubscriberErrorCode` (the current documentation's numbers: session disconnected
/// is 1010, not the older bindings' 1541).
public enum OTSubscriberErrorCode: Int32, Sendable, CaseIterable {
    /// No error.
    case success = 0
    /// The session disconnected (`OTSubscriberSessionDisconnected`).
    case sessionDisconnected = 1010
    /// Subscribing timed out (`OTConnectionTimedOut`).
    case connectionTimedOut = 1542
    /// The media path failed (`OTSubscriberWebRTCError`).
    case webRTCError = 1600
    /// The server has no such stream (`OTSubscriberServerCannotFindStream`).
    case serverCannotFindStream = 1604
    /// The stream has as many subscribers as it allows (`OTSubscriberStreamLimitExceeded`).
    case streamLimitExceeded = 1605
    /// The peer connection is not connected (`OTSubsriberPeerConnectionNotConnected`, sic).
    case peerConnectionNotConnected = 1606
    /// An internal error, e.g. the decoder failed (`OTSubscriberInternalError`).
    case internalError = 2000
    /// Decryption failed internally (`OTSubscriberDecryptionInternalError`).
    case decryptionInternalError = 6002
    /// The publisher and subscriber secrets differ (`EncryptionSecretMismatch`).
    case encryptionSecretMismatch = 6003
    /// The codec does not support decryption (`DecryptionUnsupportedCodec`).
    case decryptionUnsupportedCodec = 6006
}
