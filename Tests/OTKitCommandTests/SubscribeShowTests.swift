import Foundation
import OTMedia
import OTSignaling
import OTTestSupport
import Testing

/// `otkit subscribe --show` under an Xvfb the test starts: `otkit router`, `otkit publish
/// --test-pattern` and the subscriber run as processes; the subscriber reports the X11
/// window it opened for the stream, and a connection of the test's own reads that
/// window back: it shows a stamped test-pattern picture (not one colour). SIGTERM then
/// ends the subscriber with exit code 0. Without Xvfb the test fails.
@Suite(.serialized)
struct SubscribeShowTests {
    static let project = ProjectCredentials(apiKey: "6616", apiSecret: "6616aa11bb22cc33dd44ee55ff6677889900aabb")
    var environment: [String: String] { ["OTKIT_API_KEY": Self.project.apiKey, "OTKIT_API_SECRET": Self.project.apiSecret] }

    @Test func subscribeShowOpensAWindowShowingTheStream() throws {
        let display = try XvfbDisplay()
        defer { display.stop() }
        let dir = try temporaryDirectory("show")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let router = try BackgroundProcess(["router", "--port", "0", "--media-port", "0"], environment: environment, directory: dir)
        defer { router.terminate(); _ = router.waitForExit(10) }
        var url = ""
        #expect(poll(15) { url = listeningURL(router.stdout); return !url.isEmpty }, "router: \(router.stdout) \(router.stderr)")

        let token = try Subprocess_run(["token", "--router", url, "--role", "publisher"], environment: environment)
        let lines = keyValues(token.stdout)
        let sessionId = try #require(lines["OTKIT_SESSION"])
        let publisherToken = try #require(lines["OTKIT_TOKEN"])
        let publisher = try BackgroundProcess(["publish", "--router", url, "--session", sessionId, "--token", publisherToken,
                                               "--test-pattern", "--no-audio", "--resolution", "320x240", "--fps", "30"],
                                              directory: dir)
        defer { publisher.terminate(); _ = publisher.waitForExit(10) }

        let subscriber = try BackgroundProcess(["subscribe", "--router", url, "--session", sessionId, "--show", "--log-format", "json"],
                                               environment: environment.merging(["DISPLAY": display.name]) { _, new in new },
                                               directory: dir)
        var window: UInt32?
        #expect(poll(20) {
            window = Self.windowId(in: subscriber.stdout)
            return window != nil
        }, "the subscriber reports its window: \(subscriber.stdout.suffix(1500)) \(subscriber.stderr)")
        #expect(!subscriber.stdout.contains("\"event\":\"view_error\""), "\(subscriber.stdout.suffix(1500))")
        if let window {
            var shown: (number: UInt32?, colours: Int) = (nil, 0)
            #expect(poll(15) {
                if let read = display.readWindow(window, width: 320, height: 240) {
                    shown = (FrameNumberStamp.read(from: read.picture), read.distinctColours)
                }
                return shown.number != nil && shown.colours > 8
            }, "the window shows the stamped pattern: \(shown)")
        }
        subscriber.terminate()
        #expect(subscriber.waitForExit(15) == 0, "\(subscriber.stderr)")
    }

    /// The `windowId` of the first `"event":"window"` JSON line.
    static func windowId(in output: String) -> UInt32? {
        for line in output.split(separator: "\n") where line.contains("\"event\":\"window\"") {
            guard let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let id = object["windowId"] as? Int, id > 0 else { continue }
            return UInt32(id)
        }
        return nil
    }
}
