import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// `subscriber.view.show()` under Xvfb (issue 15, point 2): the test starts its own X
/// server, a real publisher sends the stamped test pattern through the embedded router,
/// and the subscriber's view opens a window on that server. A connection of the test's
/// own reads the window's pixels back: the frame number stamped in them is one the
/// subscriber decoded, the picture is not one colour, a `frame` of twice the size scales
/// it (the stamp still reads at the larger cell size), `removeFromSuperview()` closes
/// the window, and so does the user (WM_DELETE_WINDOW). Without Xvfb the test fails (scripts/install-deps.sh installs it).
@Suite(.serialized)
struct OTViewWindowTests {
    static let project = ProjectCredentials(apiKey: "4734", apiSecret: "0123456789abcdef0123456789abcdef0123ab16")
    private let kit = SessionTestKit(project: Self.project)

    @Test func subscriberViewShowsTheDecodedPicturesInAnXvfbWindow() throws {
        let display = try XvfbDisplay()
        defer { display.stop() }
        try AudioDeviceTestLock.run { try body(display) }
    }

    private func body(_ display: XvfbDisplay) throws {
        let device = ToneLoopDevice(frequency: 440)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (_, streamId) = try kit.publishPattern(sessionA, a, width: 320, height: 240, fps: 30)

        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)
        let (subscriber, render) = try kit.subscribeReadingFrameNumbers(sessionB, b, try #require(sessionB.streams[streamId]))
        let view = try #require(subscriber.view)
        try view.show(title: "OTViewWindowTests", display: display.name)
        defer { view.hide() }
        #expect(view.isShown)
        let window = try #require(view.x11WindowID)

        // The window takes the pictures' size and shows a frame the subscriber decoded.
        let shown = readStamp(display, window, width: 320, height: 240)
        #expect(shown.number != nil, "the window shows a stamped picture (\(shown.colours) colours read back)")
        #expect(shown.colours > 8, "the window is not one colour: \(shown.colours)")
        if let number = shown.number {
            #expect(b.wait { _ in render.seen.contains(number) }, "frame \(number) was decoded by the subscriber: \(render.seen.suffix(5))")
        }
        // It keeps up: a later read shows a later frame.
        if let first = shown.number {
            let deadline = Date().addingTimeInterval(5)
            var next = shown
            while Date() < deadline && (next.number ?? 0) <= first {
                Thread.sleep(forTimeInterval: 0.1)
                next = readStamp(display, window, width: 320, height: 240)
            }
            #expect((next.number ?? 0) > first, "the window moves on past frame \(first): \(String(describing: next.number))")
        }

        // A frame of twice the size: the picture is scaled up to fill it.
        view.frame = CGRect(x: 0, y: 0, width: 640, height: 480)
        let large = readStamp(display, window, width: 640, height: 480)
        #expect(large.number != nil, "the scaled picture's stamp reads at 640x480 (\(large.colours) colours)")

        view.removeFromSuperview()
        #expect(!view.isShown && view.x11WindowID == nil)
        #expect(display.readWindow(window, width: 16, height: 16) == nil, "the window is gone")
        // The headless view goes on after the window closed.
        let count = view.frameCount
        #expect(b.wait { _ in view.frameCount > count + 5 })

        // Shown again, then closed by the user (the window manager's WM_DELETE_WINDOW):
        // the view hides itself and its window is gone.
        view.frame = .zero
        try view.show(display: display.name)
        let again = try #require(view.x11WindowID)
        #expect(readStamp(display, again, width: 320, height: 240).number != nil)
        display.requestClose(again)
        #expect(b.wait { _ in !view.isShown }, "a window the user closes hides the view")
        #expect(display.readWindow(again, width: 16, height: 16) == nil, "and is gone")

        sessionB.disconnect()
        sessionA.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    /// Reads the window until it shows a picture whose stamp reads (up to 10 s: the
    /// window's thread draws asynchronously and a resize lands on its next wake-up). A
    /// still black window does not count, though its blank stamp reads as 0 (CRC of 0 is 0).
    private func readStamp(_ display: XvfbDisplay, _ window: UInt32, width: Int, height: Int) -> (number: UInt32?, colours: Int) {
        let deadline = Date().addingTimeInterval(10)
        var last: (number: UInt32?, colours: Int) = (nil, 0)
        while Date() < deadline {
            if let read = display.readWindow(window, width: width, height: height) {
                last = (FrameNumberStamp.read(from: read.picture), read.distinctColours)
                if last.number != nil && last.colours > 8 { return last }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return last
    }
}
