import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// The OpenTok Python server SDK starts, stops and reads an individual archive of a
/// stream the router really recorded: its objects carry `available`, the size, the
/// duration and a download link that gives the ZIP.
@Suite(.enabled(if: PythonSDK.shouldRun, "the opentok Python SDK could not be installed (PyPI unreachable?) and OTKIT_REQUIRE_DEPENDENCIES is not set"), .serialized)
struct IndividualArchivePythonSDKTests {
    static let project = ProjectCredentials(apiKey: "4720", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    private let kit = SessionTestKit(project: Self.project)

    static let script = """
    import json, sys, time, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"], api_url=req["apiUrl"])
    a = c.start_archive(req["sessionId"], name="py-individual", output_mode=opentok.OutputModes.individual)
    started = a.status
    time.sleep(2.5)
    c.stop_archive(a.id)
    g = c.get_archive(a.id)
    for _ in range(300):
        if g.status in ("available", "failed"):
            break
        time.sleep(0.1)
        g = c.get_archive(a.id)
    print(json.dumps({"started": started, "status": g.status, "size": g.size, "duration": g.duration, "url": g.url,
                      "outputMode": str(g.output_mode), "name": g.name}))
    """

    @Test func pythonSDKSeesAnAvailableIndividualArchive() throws {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        let directory = NSTemporaryDirectory() + "otkit-archive-py-" + UUID().uuidString
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
        #expect((out["outputMode"] as? String ?? "").contains("individual") && out["name"] as? String == "py-individual", "\(out)")
        let url = try #require(out["url"] as? String, "\(out)")
        let download = try ArchiveTools.get(url)
        #expect(download.status == 200 && download.body.count == out["size"] as? Int, "the url gives the ZIP")
    }
}
