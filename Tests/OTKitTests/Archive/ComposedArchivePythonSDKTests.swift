import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// The OpenTok Python server SDK records a composed archive (its default output mode) of a
/// stream the router really forwards, changes its layout and the stream's layout classes
/// while it records, and reads it back: `available`, the size, the duration and a link
/// that gives the MP4.
@Suite(.enabled(if: PythonSDK.shouldRun, "the opentok Python SDK could not be installed (PyPI unreachable?) and OTKIT_REQUIRE_DEPENDENCIES is not set"), .serialized)
struct ComposedArchivePythonSDKTests {
    static let project = ProjectCredentials(apiKey: "4721", apiSecret: "0123456789abcdef0123456789abcdef01234569")
    private let kit = SessionTestKit(project: Self.project)

    static let script = """
    import json, sys, time, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"], api_url=req["apiUrl"])
    a = c.start_archive(req["sessionId"], name="py-composed", resolution="1280x720")
    started = a.status
    time.sleep(1.2)
    c.set_archive_layout(a.id, "pip")
    stream = c.list_streams(req["sessionId"]).items[0]
    c.set_stream_class_lists(req["sessionId"], [{"id": stream.id, "layoutClassList": ["focus"]}])
    c.set_archive_layout(a.id, "custom", stylesheet="stream.focus { width: 100%; }")
    classes = c.get_stream(req["sessionId"], stream.id).layoutClassList
    time.sleep(1.2)
    c.stop_archive(a.id)
    g = c.get_archive(a.id)
    for _ in range(300):
        if g.status in ("available", "failed"):
            break
        time.sleep(0.1)
        g = c.get_archive(a.id)
    print(json.dumps({"started": started, "status": g.status, "size": g.size, "duration": g.duration, "url": g.url,
                      "outputMode": str(g.output_mode), "resolution": g.resolution, "classes": classes}))
    """

    @Test func pythonSDKRecordsAComposedArchiveAndChangesItsLayout() throws {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        let directory = NSTemporaryDirectory() + "otkit-composed-py-" + UUID().uuidString
        configuration.archiveDirectory = directory
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = try Router(configuration: configuration, media: try MediaRouter())
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let publisher = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                             token: try kit.token(sessionId, .publisher))
        defer { publisher.close() }
        try publisher.publish(name: "a", frequency: 440)

        let input: [String: Any] = ["apiKey": Self.project.apiKey, "apiSecret": Self.project.apiSecret,
                                    "apiUrl": router.baseURL, "sessionId": sessionId]
        let out = try #require(try PythonSDK.json(Self.script, input: input) as? [String: Any])
        #expect(out["started"] as? String == "started" && out["status"] as? String == "available", "\(out)")
        #expect((out["size"] as? Int ?? 0) > 0 && (2...3).contains(out["duration"] as? Int ?? -1), "\(out)")
        #expect((out["outputMode"] as? String ?? "").contains("composed") && out["resolution"] as? String == "1280x720", "\(out)")
        #expect(out["classes"] as? [String] == ["focus"], "\(out)")
        let url = try #require(out["url"] as? String, "\(out)")
        let download = try ArchiveTools.get(url)
        #expect(download.status == 200 && download.body.count == out["size"] as? Int, "the url gives the MP4")
        let file = directory + "/download.mp4"
        try Data(download.body).write(to: URL(fileURLWithPath: file))
        let probe = try ComposedMediaProbe.summary(file)
        #expect(probe.videoCodec == "h264" && probe.width == 1280 && probe.height == 720 && probe.audioCodec == "aac", "\(probe)")
    }
}
