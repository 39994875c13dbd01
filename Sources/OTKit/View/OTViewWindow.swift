import CXCB
import CYUV
import Foundation
import OTMedia
import Synchronization

/// An X11 window that shows an `OTView`'s pictures, with a thread of its own
/// (`otk-view`): it wakes when the view has a new picture (or every 100 ms to read the
/// X server's events), converts the picture to BGRA with libyuv, scales it to fit the
/// window keeping its aspect ratio, and sends it with `xcb_put_image`. The media thread
/// only signals a semaphore.
///
/// One XCB connection per window. Supported: 24- or 32-bit TrueColor screens with
/// 32 bits per pixel and LSBFirst images (Xorg, Xvfb, Xwayland on x86 and ARM).
final class OTViewWindow: @unchecked Sendable {
    /// Signalled by the media thread after each new picture.
    let wake = DispatchSemaphore(value: 0)
    /// The X window's id.
    let windowID: UInt32
    private let connection: OpaquePointer
    private let gc: UInt32
    private let depth: UInt8
    private let deleteAtom: UInt32
    private weak var view: OTView?
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let pendingGeometry = Mutex<CGRect?>(nil)
    // Window thread only:
    private var size: (width: Int, height: Int)
    private var followsPictures: Bool
    private var drawn: UInt64 = 0
    private var converted: [UInt8] = []
    private var scaled: [UInt8] = []

    /// Connects to `display` (nil: `$DISPLAY`) and opens a window; starts nothing yet.
    /// Throws, in the view's error domain (code 2000), when there is no display, the
    /// server cannot be reached or its screen is not a 32-bit-per-pixel TrueColor one.
    init(view: OTView, title: String, display: String?, geometry: CGRect, pictureSize: OTVideoDimensions?) throws(OTError) {
        func failure(_ message: String) -> OTError { OTError(domain: view.domain, code: 2000, message: message) }
        let name = try Self.resolveDisplay(display, environment: ProcessInfo.processInfo.environment, domain: view.domain)
        var screenNumber: Int32 = 0
        guard let connection = xcb_connect(name, &screenNumber) else { throw failure("cannot connect to the X server at \(name)") }
        guard xcb_connection_has_error(connection) == 0 else {
            xcb_disconnect(connection)
            throw failure("cannot connect to the X server at display \(name) (is it running, and may this user use it?)")
        }
        guard let screen = cxcb_screen(connection, screenNumber) else {
            xcb_disconnect(connection)
            throw failure("the X server at \(name) has no screen \(screenNumber)")
        }
        let depth = screen.pointee.root_depth
        guard depth == 24 || depth == 32, cxcb_bits_per_pixel(connection, depth) == 32, cxcb_lsb_first(connection) != 0 else {
            xcb_disconnect(connection)
            throw failure("the X server at \(name) has a depth-\(depth) screen; OTView draws on 24- or 32-bit TrueColor screens")
        }
        followsPictures = geometry.size.width < 1 || geometry.size.height < 1
        let width = followsPictures ? (pictureSize?.width ?? 320) : Int(geometry.size.width)
        let height = followsPictures ? (pictureSize?.height ?? 240) : Int(geometry.size.height)
        size = (min(max(width, 1), 8192), min(max(height, 1), 8192))
        let protocols = cxcb_atom(connection, "WM_PROTOCOLS")
        deleteAtom = cxcb_atom(connection, "WM_DELETE_WINDOW")
        var gc: UInt32 = 0
        windowID = cxcb_open_window(connection, screen, Int16(clamping: Int(geometry.origin.x)), Int16(clamping: Int(geometry.origin.y)),
                                    UInt16(size.width), UInt16(size.height), title, protocols, deleteAtom, &gc)
        self.connection = connection
        self.gc = gc
        self.depth = depth
        self.view = view
    }

    /// The display to open: `explicit` when given, else `DISPLAY` from `environment`;
    /// throws (code 2000 in `domain`) when neither names one, so a headless machine gets
    /// a reason instead of a window that never appears.
    static func resolveDisplay(_ explicit: String?, environment: [String: String], domain: OTErrorDomain) throws(OTError) -> String {
        guard let name = explicit ?? environment["DISPLAY"], !name.isEmpty else {
            throw OTError(domain: domain, code: 2000,
                          message: "no display: DISPLAY is not set, so OTView.show() has no X server to open a window on "
                              + "(the view's latest frame, onFrame and frameUpdates() work without one)")
        }
        return name
    }

    /// Starts the window's thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "otk-view"
        thread.start()
    }

    /// Asks the thread to close the window and waits (up to 2 s) until it has.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        _ = finished.wait(timeout: .now() + 2)
    }

    /// Stops without waiting (the view is going away).
    func stopSoon() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Moves and resizes the window on its thread; an empty size follows the pictures again.
    func requestGeometry(_ geometry: CGRect) {
        pendingGeometry.withLock { $0 = geometry }
        wake.signal()
    }

    private func run() {
        defer {
            xcb_disconnect(connection)
            finished.signal()
        }
        var force = true
        while !stopping.load(ordering: .acquiring) {
            _ = wake.wait(timeout: .now() + .milliseconds(100))
            if stopping.load(ordering: .acquiring) { break }
            if let geometry = pendingGeometry.withLock({ value -> CGRect? in defer { value = nil }; return value }) {
                applyGeometry(geometry)
                force = true
            }
            var width = UInt16(size.width), height = UInt16(size.height)
            let events = cxcb_poll(connection, windowID, deleteAtom, &width, &height)
            guard events & 4 == 0, xcb_connection_has_error(connection) == 0, let view else {
                view?.windowClosed(self)  // closed by the user or the server went away
                return
            }
            if events & 2 != 0 { size = (Int(width), Int(height)) }
            if events & 3 != 0 { force = true }
            if draw(view, force: force) { force = false }
        }
    }

    private func applyGeometry(_ geometry: CGRect) {
        followsPictures = geometry.size.width < 1 || geometry.size.height < 1
        guard !followsPictures else { return }
        size = (min(max(Int(geometry.size.width), 1), 8192), min(max(Int(geometry.size.height), 1), 8192))
        cxcb_configure(connection, windowID, Int32(clamping: Int(geometry.origin.x)), Int32(clamping: Int(geometry.origin.y)),
                       UInt32(size.width), UInt32(size.height))
    }

    /// Draws the view's newest picture when it is new (or `force`); returns whether it drew.
    private func draw(_ view: OTView, force: Bool) -> Bool {
        var placed: (x: Int, y: Int, width: Int, height: Int)?
        var resized = false
        let origin = view.frame.origin  // before taking the view's lock for the picture
        view.withNewestPicture { picture, number in
            guard force || number != drawn else { return }
            drawn = number
            if followsPictures && (picture.width != size.width || picture.height != size.height) {
                size = (picture.width, picture.height)
                cxcb_configure(connection, windowID, Int32(clamping: Int(origin.x)), Int32(clamping: Int(origin.y)),
                               UInt32(size.width), UInt32(size.height))
                resized = true
            }
            placed = convert(picture)
        }
        guard let placed else { return false }
        if force || resized { xcb_clear_area(connection, 0, windowID, 0, 0, UInt16(size.width), UInt16(size.height)) }
        let status = scaled.withUnsafeBufferPointer { pixels in
            cxcb_put_image32(connection, windowID, gc, depth, Int16(placed.x), Int16(placed.y),
                             UInt16(placed.width), UInt16(placed.height), pixels.baseAddress)
        }
        xcb_flush(connection)
        return status == 0
    }

    /// Converts `picture` to BGRA in `scaled`, fitted into the window with its aspect
    /// ratio kept (even sizes, centred); returns where it goes. Buffers grow only when
    /// the sizes do.
    private func convert(_ picture: VideoFrame) -> (x: Int, y: Int, width: Int, height: Int) {
        let scale = min(Double(size.width) / Double(picture.width), Double(size.height) / Double(picture.height))
        let width = max(2, Int(Double(picture.width) * scale) & ~1), height = max(2, Int(Double(picture.height) * scale) & ~1)
        if scaled.count != width * height * 4 { scaled = [UInt8](repeating: 0, count: width * height * 4) }
        scaled.withUnsafeMutableBufferPointer { out in
            if width == picture.width && height == picture.height {
                _ = I420ToARGB(picture.y, Int32(picture.strideY), picture.u, Int32(picture.strideUV), picture.v, Int32(picture.strideUV),
                               out.baseAddress, Int32(width * 4), Int32(width), Int32(height))
                return
            }
            if converted.count != picture.width * picture.height * 4 {
                converted = [UInt8](repeating: 0, count: picture.width * picture.height * 4)
            }
            converted.withUnsafeMutableBufferPointer { full in
                _ = I420ToARGB(picture.y, Int32(picture.strideY), picture.u, Int32(picture.strideUV), picture.v, Int32(picture.strideUV),
                               full.baseAddress, Int32(picture.width * 4), Int32(picture.width), Int32(picture.height))
                _ = ARGBScale(full.baseAddress, Int32(picture.width * 4), Int32(picture.width), Int32(picture.height),
                              out.baseAddress, Int32(width * 4), Int32(width), Int32(height), kFilterBilinear)
            }
        }
        return ((size.width - width) / 2, (size.height - height) / 2, width, height)
    }
}
