/// A subscriber (`OTSubscriber`), made with the failable `init(stream:delegate:)` it
/// inherits. On iOS it adds a view to the kit; here every subscriber has `view` (an
/// `OTView`, see OTSubscriberKit+View.swift), besides `videoRender`. Cost: as
/// `OTSubscriberKit`.
public final class OTSubscriber: OTSubscriberKit, @unchecked Sendable {}
