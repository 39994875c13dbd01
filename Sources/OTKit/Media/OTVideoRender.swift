/// Where a subscriber's (or publisher's) decoded pictures go (`OTVideoRender`).
///
/// Called on the subscriber's receive thread (not `apiQueue`), once per decoded frame:
/// return quickly. The frame may be kept; it returns to its pool when released.
public protocol OTVideoRender: AnyObject, Sendable {
    /// One decoded frame.
    func renderVideoFrame(_ frame: OTVideoFrame)
}
