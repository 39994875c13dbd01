import OTMedia

extension OTPublisherKit {
    /// The picture being published (`OTPublisher.view`; a `UIView` on iOS): the
    /// capturer's frames as the encoder gets them, for a UI toolkit or a window of its
    /// own (`OTView.show()`). Never nil on Linux; optional as in the reference, so the
    /// guides' `if let publisherView = publisher.view` compiles. Frames reach it while
    /// publishing (capture starts with `publish`), also while `publishVideo` is false, as
    /// a local preview. Cost: nothing until first asked for; then one picture copy per
    /// captured frame (see `OTView`).
    public var view: OTView? {
        linuxView.activate()
        return linuxView
    }
}

/// A video source that hands each frame it delivers to the publisher's view before the
/// encoder gets it. Capture thread; cost per frame: `OTView.deliver` (an atomic load
/// until the view is asked for).
final class ViewTapSource: VideoSource, @unchecked Sendable {
    private let inner: any VideoSource
    private let view: OTView

    init(_ inner: any VideoSource, view: OTView) {
        self.inner = inner
        self.view = view
    }

    var format: VideoFormat { inner.format }
    var statistics: CaptureStatistics { inner.statistics }
    func start() throws(MediaError) { try inner.start() }
    func stop() { inner.stop() }
    func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> VideoFrame? {
        guard let frame = try inner.nextFrame(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        view.deliver(frame)
        return frame
    }
}
