/// A media leg the media plane ended by itself (an edge leg whose DTLS handshake failed
/// or did not finish in time), told to signaling after the leg was removed so the owning
/// connection can be told (`ServerMessage.mediaFailed`) and the others see the stream go.
public enum MediaLegEnded: Sendable, Equatable {
    /// The publisher leg of `streamId` ended; the stream's forwarding (and every
    /// subscriber leg of it) is gone.
    case publisher(streamId: String, reason: String)
    /// One subscriber leg ended; the stream goes on for the others.
    case subscriber(subscriberId: String, reason: String)
}

/// Hears of `MediaLegEnded`, on a media-plane queue (not a worker thread, outside every
/// media lock); may take signaling's lock and send.
public typealias MediaLegEndedHandler = @Sendable (MediaLegEnded) -> Void
