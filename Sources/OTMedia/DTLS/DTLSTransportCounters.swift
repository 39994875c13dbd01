/// What one `DTLSTransport` has seen, for the router's statistics. A plain value read on
/// the transport's own thread (`DTLSTransport.counters`); copying it is free.
public struct DTLSTransportCounters: Sendable, Equatable {
    /// Datagrams handed to `receive`.
    public var datagramsReceived: UInt64 = 0
    /// Datagrams dropped before OpenSSL saw them: not a DTLS record by their first byte
    /// (RFC 7983: 20–63), shorter than a record header, or arriving after the end.
    public var datagramsIgnored: UInt64 = 0
    /// Datagrams OpenSSL rejected before any ClientHello was accepted (server only): the
    /// SSL object was reset instead of failing the leg, so garbage cannot kill it.
    public var rejectedBeforeHandshake: UInt64 = 0
    /// Records dropped after the handshake before OpenSSL saw them: epoch 0 (plaintext,
    /// forgeable), shorter than an AEAD tag, or running past the datagram's end.
    public var recordsDiscarded: UInt64 = 0
    /// Times OpenSSL's association broke after the handshake (a forged record it choked
    /// on): the SSL object was released, the leg stayed connected with its keys.
    public var associationErrorsAfterHandshake: UInt64 = 0
    /// Flights resent by the retransmission timer.
    public var retransmissions: UInt64 = 0
    /// Application-data bytes received and discarded (OTKit carries no data channel yet).
    public var applicationBytesDiscarded: UInt64 = 0
    /// Datagrams handed out to be sent.
    public var datagramsSent: UInt64 = 0

    /// All zero.
    public init() {}
}
