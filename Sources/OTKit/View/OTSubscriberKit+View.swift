extension OTSubscriberKit {
    /// The stream's decoded pictures (`OTSubscriber.view`; a `UIView` on iOS), for a UI
    /// toolkit or a window of its own (`OTView.show()`). Never nil on Linux; optional as
    /// in the reference, so the guides' `if let subscriberView = subscriber.view`
    /// compiles. Fed on the receive thread beside `videoRender` (both get every decoded
    /// frame) while `subscribeToVideo` is true. Cost: nothing until first asked for; then
    /// one picture copy per decoded frame (see `OTView`).
    public var view: OTView? {
        linuxView.activate()
        return linuxView
    }
}
