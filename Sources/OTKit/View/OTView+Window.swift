import CXCB
import Foundation
import OTMedia

/// The window form of `OTView`: where an X server is reachable, the view shows itself.
extension OTView {
    /// Opens a window on `display` (nil: the `DISPLAY` environment variable) that shows
    /// the view's pictures as they arrive, scaled to fit (`frame` places and sizes it;
    /// by default it takes the pictures' size). Does nothing when already shown. Throws
    /// OTError 2000 in the publisher's or subscriber's domain when DISPLAY is not set or
    /// the X server cannot be reached: no window is ever opened without a display.
    /// Cost: an XCB connection and a thread (`otk-view`) that converts and sends each
    /// new picture (libyuv BGRA conversion and scaling, one `xcb_put_image`); the media
    /// thread only signals it.
    public func show(title: String? = nil, display: String? = nil) throws(OTError) {
        activate()
        guard !isShown else { return }
        let (placement, pictureSize) = lock.withLock { () -> (CGRect, OTVideoDimensions?) in
            (geometry, latest.map { OTVideoDimensions(width: $0.width, height: $0.height) })
        }
        let defaultTitle = domain == .publisher ? "OTKit publisher" : "OTKit subscriber"
        let opened = try OTViewWindow(view: self, title: title ?? defaultTitle, display: display, geometry: placement,
                                      pictureSize: pictureSize)
        let installed = lock.withLock { () -> Bool in
            guard window == nil else { return false }
            window = opened
            return true
        }
        opened.start()
        if !installed { opened.stop() }  // another show() won the race
    }

    /// Closes the window, if shown; the view keeps receiving pictures. Cost: waits for
    /// the window's thread to finish (at most one frame's drawing).
    public func hide() {
        let closing = lock.withLock { () -> OTViewWindow? in
            defer { window = nil }
            return window
        }
        closing?.stop()
    }

    /// Takes the view off the screen (`removeFromSuperview` on iOS): closes its window,
    /// as `hide()`. The guides call it when a stream ends. Cost: as `hide()`.
    public func removeFromSuperview() { hide() }

    /// Why `show(display:)` could not open a window now, or nil when it could: DISPLAY
    /// not set, or its X server unreachable or unsupported. Cost: one connection to the
    /// X server, closed again.
    public static func displayProblem(_ display: String? = nil) -> String? {
        let name: String
        do { name = try OTViewWindow.resolveDisplay(display, environment: ProcessInfo.processInfo.environment, domain: .session) } catch {
            return error.message
        }
        var screen: Int32 = 0
        guard let connection = xcb_connect(name, &screen) else { return "cannot connect to the X server at \(name)" }
        defer { xcb_disconnect(connection) }
        guard xcb_connection_has_error(connection) == 0 else {
            return "cannot connect to the X server at display \(name) (is it running, and may this user use it?)"
        }
        return nil
    }

    /// The window's thread: `body` with the newest picture and its number, under the
    /// view's lock (the media thread waits meanwhile); nothing before the first picture.
    func withNewestPicture(_ body: (VideoFrame, UInt64) -> Void) {
        lock.withLock {
            guard let latest else { return }
            body(latest, received)
        }
    }

    /// The window's thread: the user closed `closed` (or its X server went away).
    func windowClosed(_ closed: OTViewWindow) {
        lock.withLock { if window === closed { window = nil } }
    }
}
