/// A subscriber (`OTSubscriber`), made with the failable `init(stream:delegate:)` it
/// inherits. On iOS it adds a view to the kit; here decoded frames go to `videoRender`
/// (and to `view` where the view extension provides one). Cost: as `OTSubscriberKit`.
public final class OTSubscriber: OTSubscriberKit, @unchecked Sendable {}
