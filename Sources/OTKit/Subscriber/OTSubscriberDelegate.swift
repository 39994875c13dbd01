/// What an `OTSubscriber` tells its app (`OTSubscriberDelegate`): everything
/// `OTSubscriberKitDelegate` has, under the same names (`subscriberDidConnect(toStream:)`
/// and `subscriber(_:didFailWithError:)` required, the rest optional). An `OTSubscriber`
/// accepts either protocol as its delegate. Cost: none (a protocol).
public protocol OTSubscriberDelegate: OTSubscriberKitDelegate {}
