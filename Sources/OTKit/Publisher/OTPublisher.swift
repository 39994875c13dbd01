import Foundation
import OTMedia

/// A publisher with the machine's camera (`OTPublisher`): the first V4L2 capture device
/// (or `settings.cameraDevicePath`) at the requested size and rate; on a machine
/// without a camera a `TestPatternSource` of that size stands in (frame numbers stamped
/// in the picture). A custom `videoCapture` in the settings replaces the camera.
public final class OTPublisher: OTPublisherKit, @unchecked Sendable {
    /// The camera's capture size.
    public let cameraResolution: OTCameraCaptureResolution
    /// The camera's frame rate.
    public let cameraFrameRate: OTCameraCaptureFrameRate
    private let cameraDevicePath: String?

    /// A camera publisher with `settings` (`initWithDelegate:settings:`, failable as in
    /// OpenTok, so the guides' `OTPublisher(delegate: self, settings: settings)!`
    /// compiles). Nil when `settings.cameraDevicePath` names a device that does not
    /// exist and no `videoCapture` replaces the camera (iOS returns nil where there is
    /// no camera; here a missing default camera is replaced by the test pattern, but a
    /// camera the app named and that is not there is its mistake to hear about).
    /// Nothing is opened until it is published. Cost: one `stat` of the named device.
    public init?(delegate: (any OTPublisherKitDelegate)?, settings: OTPublisherSettings = OTPublisherSettings()) {
        if settings.videoCapture == nil, settings.videoTrack, let path = settings.cameraDevicePath,
           !FileManager.default.fileExists(atPath: path) {
            return nil
        }
        cameraResolution = settings.cameraResolution
        cameraFrameRate = settings.cameraFrameRate
        cameraDevicePath = settings.cameraDevicePath
        super.init(delegate: delegate, settings: settings)
        videoType = settings.videoCapture == nil ? .camera : .custom
    }

    override func makeVideoSource() throws(OTError) -> (any VideoSource)? {
        if videoCapture != nil { return try super.makeVideoSource() }
        guard videoTrack else { return nil }
        let size = cameraResolution.size
        let requested = VideoFormat(width: size.width, height: size.height, frameRate: cameraFrameRate.rawValue)
        let path = cameraDevicePath ?? V4L2Camera.devices().first?.path
        if let path, let camera = try? V4L2Camera(path: path, requested: requested) { return camera }
        do { return try TestPatternSource(format: requested) } catch { throw OTError(publishing: error) }
    }

    override func plannedVideoSize() -> (width: Int, height: Int) {
        if videoCapture != nil { return super.plannedVideoSize() }
        return cameraResolution.size
    }
}
