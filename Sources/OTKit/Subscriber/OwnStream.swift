/// Subscribing to your own stream (the publishing guide's "test a publisher's stream").
///
/// In a routed session the subscription goes through the router like anyone else's, so
/// its network statistics are those of the real path (publisher → router → subscriber).
/// The reference says a client's own stream can be measured only in a routed session; in
/// a relayed one no media server carries the stream (the publisher sends straight to its
/// peers), so there is nothing to subscribe to: OTKit and the router refuse it with the
/// reference's `OTSubscriberServerCannotFindStream` (1604), saying why.
enum OwnStream {
    /// The synchronous refusal `subscribe` throws for our own stream in a relayed session.
    static var relayedRefusal: OTError {
        OTError(OTSubscriberErrorCode.serverCannotFindStream,
                "your own stream cannot be subscribed to in a relayed session (no media router carries it); use a routed session")
    }
}
