import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Synchronization
import Testing
@testable import OTKit

/// `publisher.view` and `subscriber.view` (issue 15, point 2) without a display: each
/// holds the newest picture (its size, a borrowed I420 frame, a copy, a BGRA conversion)
/// and reports new pictures through `onFrame` and `frameUpdates()`; the pictures are the
/// publisher's own test pattern (its stamped frame numbers read back). `show()` without
/// a display is refused with a reason and opens nothing.
@Suite(.serialized)
struct OTViewTests {
    static let project = ProjectCredentials(apiKey: "4733", apiSecret: "0123456789abcdef0123456789abcdef0123ab15")
    private let kit = SessionTestKit(project: Self.project)

    @Test func publisherAndSubscriberViewsHoldTheNewestPicture() throws {
        try AudioDeviceTestLock.run { try viewsBody() }
    }

    private func viewsBody() throws {
        let device = ToneLoopDevice(frequency: 440)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)

        // Before publishing the view exists and is empty, as a UIView before its first frame.
        let idle = OTPublisherKit(delegate: nil, settings: OTPublisherKitSettings())
        let idleView = try #require(idle.view)
        #expect(idleView.videoDimensions == nil && idleView.frameCount == 0 && idleView.latestFrame() == nil)
        #expect(idleView.withLatestFrame { _ in true } == nil)

        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, width: 320, height: 240, fps: 30)
        try expectLiveView(try #require(publisher.view), width: 320, height: 240, what: "publisher")

        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)
        let (subscriber, render) = try kit.subscribeReadingFrameNumbers(sessionB, b, try #require(sessionB.streams[streamId]))
        let view = try #require(subscriber.view)
        try expectLiveView(view, width: 320, height: 240, what: "subscriber")
        // The view is fed beside videoRender, not instead of it: the numbers it holds are
        // numbers the renderer decoded.
        let number = try #require(view.withLatestFrame { FrameNumberStamp.read(from: $0.videoFrame) } ?? nil)
        #expect(b.wait { _ in render.seen.contains(number) }, "the renderer saw frame \(number) too: \(render.seen.suffix(5))")

        sessionB.disconnect()
        sessionA.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
        #expect(a.wait { $0.last == "didDisconnect" })
    }

    /// The view fills within 10 s and every way of reading it agrees with the pattern.
    private func expectLiveView(_ view: OTView, width: Int, height: Int, what: String,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let infos = Mutex<[OTViewFrameInfo]>([])
        view.onFrame = { info in infos.withLock { if $0.count < 1000 { $0.append(info) } } }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && view.frameCount < 20 { Thread.sleep(forTimeInterval: 0.02) }
        #expect(view.frameCount >= 20, "\(what): pictures reach the view", sourceLocation: sourceLocation)
        #expect(view.videoDimensions == OTVideoDimensions(width: width, height: height), "\(what)", sourceLocation: sourceLocation)

        let seen = infos.withLock { $0 }
        #expect(seen.count >= 10, "\(what): onFrame is called per picture: \(seen.count)", sourceLocation: sourceLocation)
        #expect(seen.allSatisfy { $0.dimensions == OTVideoDimensions(width: width, height: height) }, sourceLocation: sourceLocation)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.frameNumber + 1 == $1.frameNumber && $0.timestampNanoseconds <= $1.timestampNanoseconds },
                "\(what): onFrame sees every picture once, in order", sourceLocation: sourceLocation)

        // Borrowed, copied and converted forms all hold the pattern's stamped picture.
        let borrowed = view.withLatestFrame { frame in (frame.videoFrame.width, frame.videoFrame.height, FrameNumberStamp.read(from: frame.videoFrame)) }
        #expect(borrowed?.0 == width && borrowed?.1 == height, sourceLocation: sourceLocation)
        #expect(borrowed?.2 != nil, "\(what): the borrowed frame's stamp reads", sourceLocation: sourceLocation)
        let copy = try #require(view.latestFrame(), sourceLocation: sourceLocation)
        let kept = FrameNumberStamp.read(from: copy.videoFrame)
        #expect(kept != nil, "\(what): the copy's stamp reads", sourceLocation: sourceLocation)
        // The copy is the app's: later pictures do not change it.
        let later = view.frameCount
        while view.frameCount < later + 3 && Date() < deadline + 5 { Thread.sleep(forTimeInterval: 0.02) }
        #expect(FrameNumberStamp.read(from: copy.videoFrame) == kept, sourceLocation: sourceLocation)

        var bgra: [UInt8] = []
        let size = view.copyLatestFrameBGRA(into: &bgra)
        #expect(size == OTVideoDimensions(width: width, height: height) && bgra.count == width * height * 4, sourceLocation: sourceLocation)
        // Not one colour: the stamp's black and white cells are both there (top-left band).
        let cell = FrameNumberStamp.cellSize(width: width, height: height)
        var greens = Set<UInt8>()
        for bit in 0..<32 {
            let x = (bit % 16) * cell + cell / 2, y = (bit / 16) * cell + cell / 2
            greens.insert(bgra[(y * width + x) * 4 + 1] > 128 ? 1 : 0)
        }
        #expect(greens.count == 2, "\(what): the BGRA picture has the stamp's black and white cells", sourceLocation: sourceLocation)
    }

    /// `frameUpdates()` on both views: an async reader gets the pictures' descriptions in
    /// order, newest first when it lags (video only: this test needs no audio device).
    @Test func frameUpdatesYieldEachNewPicture() async throws {
        let router = try kit.startRouter()
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = DelegateRecorder()
        let sessionA = try kit.makeSession(router, sessionId, a)
        try kit.connect(sessionA, a, token: try kit.token(sessionId, .publisher))
        let (publisher, streamId) = try kit.publishPattern(sessionA, a, width: 160, height: 120, fps: 30) { $0.audioTrack = false }
        try await expectUpdates(try #require(publisher.view), width: 160, height: 120)

        let b = DelegateRecorder()
        let sessionB = try kit.joinSeeing(streamId, router, sessionId, b)
        let (subscriber, _) = try kit.subscribeReadingFrameNumbers(sessionB, b, try #require(sessionB.streams[streamId]))
        try await expectUpdates(try #require(subscriber.view), width: 160, height: 120)
        sessionB.disconnect()
        sessionA.disconnect()
        #expect(b.wait { $0.last == "didDisconnect" })
    }

    private func expectUpdates(_ view: OTView, width: Int, height: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var updates = view.frameUpdates().makeAsyncIterator()
        var seen: [OTViewFrameInfo] = []
        for _ in 0..<5 {
            seen.append(try #require(await updates.next(), sourceLocation: sourceLocation))
        }
        #expect(seen.allSatisfy { $0.dimensions == OTVideoDimensions(width: width, height: height) }, sourceLocation: sourceLocation)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.frameNumber < $1.frameNumber }, "\(seen.map(\.frameNumber))",
                sourceLocation: sourceLocation)
        #expect(seen.last!.frameNumber <= view.frameCount, sourceLocation: sourceLocation)
    }

    /// The publishing and subscribing guides' view code, UIKit's `addSubview` aside,
    /// compiles as written and does what it says: `frame` is kept for the window, and
    /// `removeFromSuperview()` on a view never shown is harmless.
    @Test func theGuidesViewCodeCompiles() throws {
        let publisher: OTPublisher? = OTPublisher(delegate: nil, settings: OTPublisherSettings())
        if let publisherView = publisher?.view {
            publisherView.frame = CGRect(x: 0, y: 0, width: 200, height: 150)
        }
        #expect(publisher?.view?.frame == CGRect(x: 0, y: 0, width: 200, height: 150))
        publisher?.view?.removeFromSuperview()
        #expect(publisher?.view?.isShown == false)
        #expect(publisher?.view === publisher?.view, "one view per publisher, as a UIView")
    }

    @Test func showWithoutADisplayIsRefusedWithAReason() throws {
        #expect(throws: OTError.self) { try OTViewWindow.resolveDisplay(nil, environment: [:], domain: .subscriber) }
        do throws(OTError) {
            _ = try OTViewWindow.resolveDisplay(nil, environment: ["PATH": "/usr/bin"], domain: .subscriber)
            Issue.record("no DISPLAY must be refused")
        } catch {
            #expect(error.domain == .subscriber && error.code == 2000)
            #expect(error.message.contains("DISPLAY is not set"))
        }
        #expect(try OTViewWindow.resolveDisplay(nil, environment: ["DISPLAY": ":7"], domain: .publisher) == ":7")
        #expect(try OTViewWindow.resolveDisplay(":3", environment: ["DISPLAY": ":7"], domain: .publisher) == ":3")

        let stream = OTPublisherKit(delegate: nil, settings: OTPublisherKitSettings())
        let view = try #require(stream.view)
        do throws(OTError) {
            try view.show(display: "")
            Issue.record("an empty display must be refused")
        } catch {
            #expect(error.domain == .publisher && error.code == 2000 && error.message.contains("DISPLAY"))
        }
        #expect(!view.isShown && view.x11WindowID == nil)
        #expect(OTView.displayProblem("")?.contains("DISPLAY is not set") == true)

        // A display nobody serves: refused as unreachable, nothing shown.
        let unused = try #require((60..<900).first {
            !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\($0)") && !FileManager.default.fileExists(atPath: "/tmp/.X\($0)-lock")
        })
        do throws(OTError) {
            try view.show(display: ":\(unused)")
            Issue.record("a display without a server must be refused")
        } catch {
            #expect(error.code == 2000 && error.message.contains("cannot connect"), "\(error)")
        }
        #expect(!view.isShown)
    }
}
