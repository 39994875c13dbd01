import Foundation
import OTNet
import OTSignaling
import OTTestSupport
import Testing

/// `otkit demo --browser`: the command prints the room page's URL with a
/// token; headless Chromium (fake camera and microphone) opens it; the page decodes the
/// demo's native test pattern, and the demo's summary reports the browser that joined and
/// the frames it decoded from the browser's stream when it is stopped (SIGTERM).
@Suite(.serialized) struct DemoBrowserTests {
    @Test func aBrowserOpeningThePrintedURLDecodesTheDemoAndTheSummaryCountsItsFrames() throws {
        let dir = try temporaryDirectory("demo-browser")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let seconds = 120  // an upper bound: the test stops the demo with SIGTERM once it has what it checks
        let demo = try BackgroundProcess(["demo", "--browser", "--test-pattern", "--seconds", String(seconds)], directory: dir)
        defer { if demo.isRunning { demo.terminate(); _ = demo.waitForExit(10) } }
        var url = ""
        #expect(poll(30) {
            url = demo.stdout.split(separator: "\n").first { $0.hasPrefix("open in a browser: ") }
                .map { String($0.dropFirst("open in a browser: ".count)) } ?? ""
            return !url.isEmpty
        }, "demo output: \(demo.stdout) \(demo.stderr)")
        #expect(url.hasPrefix("http://127.0.0.1:") && url.contains("/room/") && url.contains("?token="), "\(url)")

        let browser = try ChromiumBrowser()
        defer { browser.close() }
        let page = try browser.openPage()
        try page.navigate(url)
        // The demo's stream, in a tile, decoding.
        try page.waitFor("window.room && room.subscribers.size === 1", timeout: 30, what: "the page to subscribe to the demo's stream")
        try page.waitFor("document.querySelector('figure[data-stream-id] video') && document.querySelector('figure[data-stream-id] video').videoWidth > 0",
                         timeout: 30, what: "the demo's tile to show video")
        let decoded = "(async () => (await [...room.subscribers.values()][0].getStats()).video.framesDecoded)()"
        let first = try page.evaluate(decoded, as: Int.self)
        #expect(poll(20) { ((try? page.evaluate(decoded, as: Int.self)) ?? 0) >= first + 30 }, "the page's framesDecoded from \(first)")
        try page.waitFor("room.publisher && room.publisher.stream", timeout: 30, what: "the page to publish")
        #expect(poll(30) { demo.stdout.contains("browser stream: ") }, "\(demo.stdout)")
        // Two live lines in which the demo decoded the browser's video, then the SIGTERM
        // path: the summary is printed on a signal as on `--seconds`.
        let decodingLines = { demo.stdout.split(separator: "\n").filter { $0.contains("fps decoded from browsers") && !$0.contains(" 0.0 fps") }.count }
        let before = decodingLines()
        #expect(poll(30) { decodingLines() >= before + 2 }, "the demo's live lines: \(demo.stdout)")
        demo.terminate()

        let status = demo.waitForExit(30)
        #expect(status == 0, "exit \(String(describing: status)): \(demo.stdout) \(demo.stderr)")
        let out = demo.stdout
        print("otkit demo --browser printed:\n\(out)")
        #expect(out.contains("browser joined: connection "), "\(out)")
        let summary = try #require(out.split(separator: "\n").first { $0.hasPrefix("summary: ") }.map(String.init), "\(out)")
        let frames = try #require(summary.firstMatch(of: /(\d+) frames decoded from browsers/).flatMap { Int($0.1) }, "\(summary)")
        #expect(summary.hasPrefix("summary: 1 browsers joined, 1 browser streams"), "\(summary)")
        #expect(frames >= 30, "frames decoded from the browser: \(summary)")
        #expect(page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(page.consoleMessages)")
    }
}

/// `otkit router` and dev tokens: on by default on loopback (it says so, and the endpoint
/// answers a token over a real socket), off on 0.0.0.0 (it says so, 403), on there only
/// with `--dev-tokens`.
@Suite(.serialized) struct RouterDevTokensCommandTests {
    static let project = ProjectCredentials(apiKey: "7733", apiSecret: "7733aa11bb22cc33dd44ee55ff6677889900aabb")
    static var environment: [String: String] { ["OTKIT_API_KEY": project.apiKey, "OTKIT_API_SECRET": project.apiSecret] }

    @Test func theRouterSaysWhetherDevTokensAreOnAndTheEndpointFollows() throws {
        let dir = try temporaryDirectory("dev-tokens")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (host, flag, on) in [("127.0.0.1", false, true), ("0.0.0.0", false, false), ("0.0.0.0", true, true)] {
            let router = try BackgroundProcess(["router", "--host", host, "--port", "0", "--media-port", "0"] + (flag ? ["--dev-tokens"] : []),
                                               environment: Self.environment, directory: dir)
            defer { router.terminate(); _ = router.waitForExit(10) }
            #expect(poll(30) { router.stdout.contains("room page: ") }, "router output: \(router.stdout) \(router.stderr)")
            #expect(router.stdout.contains(on ? "(dev tokens ON" : "(dev tokens off)"), "\(host) \(flag): \(router.stdout)")
            #expect(router.stderr.contains("router.devTokens") == on, "\(host) \(flag): the log says so: \(router.stderr)")
            let base = listeningURL(router.stdout)
            let session = try OpenTokSessionID.create(apiKey: Self.project.apiKey).rawValue
            let answer = try HTTPClient.request("POST", "\(base)/room/\(session)/token")
            #expect(answer.status == (on ? 200 : 403), "\(host) \(flag): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("\"token\"") == on)
        }
    }
}
