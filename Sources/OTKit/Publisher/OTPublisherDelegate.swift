/// What an `OTPublisher` tells its app (`OTPublisherDelegate`): everything
/// `OTPublisherKitDelegate` has, under the same names. On iOS it adds only
/// `publisher(_:didChangeCameraPosition:)`, which needs a front/back camera; Linux
/// cameras have no position, so nothing is added here. An `OTPublisher` accepts either
/// protocol as its delegate. Cost: none (a protocol).
public protocol OTPublisherDelegate: OTPublisherKitDelegate {}
