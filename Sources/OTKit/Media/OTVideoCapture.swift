/// A custom video capturer (`OTVideoCapture`): the app's own source of pictures for an
/// `OTPublisherKit`. The publisher calls `initCapture`, `captureSettings` (to size the
/// encoder), `startCapture` when it starts publishing and `stopCapture` /
/// `releaseCapture` when it stops; meanwhile the capturer pushes frames into
/// `videoCaptureConsumer` from any thread.
public protocol OTVideoCapture: AnyObject {
    /// Set by the publisher before `initCapture`; push frames here.
    var videoCaptureConsumer: OTVideoCaptureConsumer? { get set }
    /// Prepare to capture (allocate what is needed).
    func initCapture()
    /// Release what `initCapture` took.
    func releaseCapture()
    /// Start delivering frames; returns 0 on success (OpenTok's int32 convention).
    func startCapture() -> Int32
    /// Stop delivering frames; returns 0 on success.
    func stopCapture() -> Int32
    /// Whether frames are being delivered.
    func isCaptureStarted() -> Bool
    /// Fills in the format frames will have; returns 0 on success.
    func captureSettings(_ videoFormat: inout OTVideoFormat) -> Int32
}
