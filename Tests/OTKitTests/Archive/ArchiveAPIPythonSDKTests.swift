import Foundation
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// The archive REST surface driven by the pinned OpenTok Python server SDK against a
/// router that really records: manual stream mode (add two streams, one without video,
/// remove one), get/list (offset, count, session), `multiArchiveTag`, the SDK's errors,
/// stop, delete, `paused`, and `maxDuration` stopping an archive by itself. The SDK's
/// objects must carry the right status, size, duration, url and streams; the ZIP must
/// hold what was asked (ffprobe reads the files).
@Suite(.enabled(if: PythonSDK.shouldRun, "the opentok Python SDK could not be installed (PyPI unreachable?) and OTKIT_REQUIRE_DEPENDENCIES is not set"), .serialized)
struct ArchiveAPIPythonSDKTests {
    static let project = ProjectCredentials(apiKey: "4721", apiSecret: "1123456789abcdef0123456789abcdef01234567")
    private let kit = SessionTestKit(project: Self.project)

    /// Drives the whole surface; prints one JSON object of what the SDK saw.
    static let script = """
    import json, sys, time, opentok
    from opentok import OutputModes, StreamModes
    from opentok.exceptions import ArchiveError, NotFoundError, RequestError
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"], api_url=req["apiUrl"])
    sid, a_stream, b_stream = req["sessionId"], req["streamA"], req["streamB"]
    out = {}
    def err(f):
        try:
            f()
            return "no error"
        except Exception as e:
            return type(e).__name__ + ":" + str(e)
    m = c.start_archive(sid, name="manual", output_mode=OutputModes.individual, stream_mode=StreamModes.manual)
    out["manualStart"] = {"status": m.status, "streamMode": str(m.stream_mode), "streams": m.streams}
    c.add_archive_stream(m.id, a_stream)
    c.add_archive_stream(m.id, b_stream, has_audio=True, has_video=False)
    out["afterAdd"] = c.get_archive(m.id).streams
    out["addUnknown"] = err(lambda: c.add_archive_stream(m.id, "no-such-stream"))
    out["addNeither"] = err(lambda: c.add_archive_stream(m.id, a_stream, has_audio=False, has_video=False))
    time.sleep(2.0)
    c.remove_archive_stream(m.id, b_stream)
    out["afterRemove"] = c.get_archive(m.id).streams
    out["removeAgain"] = err(lambda: c.remove_archive_stream(m.id, b_stream))
    time.sleep(1.0)
    t = c.start_archive(sid, name="tagged", multi_archive_tag="t1")
    out["tagged"] = t.status
    out["sameTag"] = err(lambda: c.start_archive(sid, multi_archive_tag="t1"))
    out["untagged"] = err(lambda: c.start_archive(sid))
    auto_patch = err(lambda: c.add_archive_stream(t.id, a_stream))
    out["autoPatch"] = auto_patch
    l = c.list_archives(session_id=sid)
    out["list"] = {"count": l.count, "ids": [x.id for x in l.items], "statuses": [x.status for x in l.items]}
    out["page"] = [x.id for x in c.list_archives(offset=1, count=1, session_id=sid).items]
    out["ids"] = {"manual": m.id, "tagged": t.id}
    c.stop_archive(t.id)
    m.stop()
    out["stoppedStatus"] = m.status
    out["stopAgain"] = err(lambda: c.stop_archive(m.id))
    g = c.get_archive(m.id)
    for _ in range(300):
        if g.status in ("available", "failed"):
            break
        time.sleep(0.1)
        g = c.get_archive(m.id)
    out["final"] = {"status": g.status, "size": g.size, "duration": g.duration, "url": g.url}
    c.delete_archive(t.id)
    out["deletedGet"] = err(lambda: c.get_archive(t.id))
    out["deleteAgain"] = err(lambda: c.delete_archive(t.id))
    p = c.start_archive(req["quietSessionId"], name="quiet")
    out["quiet"] = {"start": p.status, "get": c.get_archive(p.id).status}
    p.stop()
    out["quietStopped"] = p.status
    print(json.dumps(out))
    """

    @Test func theSDKDrivesManualStreamsTagsListsAndErrors() throws {
        let directory = NSTemporaryDirectory() + "otkit-archive-api-py-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = try Self.router(directory)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey, token: try kit.token(sessionId, .publisher))
        defer { a.close() }
        let b = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey, token: try kit.token(sessionId, .publisher))
        defer { b.close() }
        let streamA = try a.publish(name: "a", frequency: 440)
        let streamB = try b.publish(name: "b", frequency: 660)
        // A second session with a client connected and nothing published: its archive is paused.
        let quietSession = try router.createSession(apiKey: Self.project.apiKey)
        let quiet = try ArchivePublisher(router: router, sessionId: quietSession, apiKey: Self.project.apiKey,
                                         token: try kit.token(quietSession, .publisher))
        defer { quiet.close() }

        let input: [String: Any] = ["apiKey": Self.project.apiKey, "apiSecret": Self.project.apiSecret, "apiUrl": router.baseURL,
                                    "sessionId": sessionId, "streamA": streamA, "streamB": streamB, "quietSessionId": quietSession]
        let out = try #require(try PythonSDK.json(Self.script, input: input, timeoutSeconds: 120) as? [String: Any])
        let start = out["manualStart"] as? [String: Any]
        #expect(start?["status"] as? String == "started" && (start?["streamMode"] as? String ?? "").contains("manual")
            && (start?["streams"] as? [Any])?.isEmpty == true, "\(out)")
        let added = out["afterAdd"] as? [[String: Any]] ?? []
        #expect(added.count == 2 && added.last?["streamId"] as? String == streamB && added.last?["hasVideo"] as? Bool == false
            && added.first?["hasVideo"] as? Bool == true, "\(added)")
        // add/remove_archive_stream raise RequestError('An unexpected error occurred.', status) for every error.
        #expect((out["addUnknown"] as? String ?? "").contains("404"), "\(out)")
        #expect((out["addNeither"] as? String ?? "").contains("400"), "\(out)")
        #expect((out["afterRemove"] as? [[String: Any]])?.map { $0["streamId"] as? String } == [streamA], "\(out)")
        #expect((out["removeAgain"] as? String ?? "").contains("404"), "\(out)")
        #expect((out["autoPatch"] as? String ?? "").contains("400"), "\(out)")
        #expect(out["tagged"] as? String == "started", "\(out)")
        #expect(out["sameTag"] as? String == "ArchiveError:Session is already being recorded with multiArchiveTag t1", "\(out)")
        #expect(out["untagged"] as? String == "ArchiveError:Session is already being recorded", "\(out)")
        let ids = out["ids"] as? [String: String] ?? [:]
        let list = out["list"] as? [String: Any]
        #expect(list?["count"] as? Int == 2 && list?["ids"] as? [String] == [ids["tagged"], ids["manual"]].compactMap { $0 }
            && list?["statuses"] as? [String] == ["started", "started"], "newest first: \(out)")
        #expect(out["page"] as? [String] == [ids["manual"]].compactMap { $0 }, "offset 1, count 1: \(out)")
        #expect(out["stoppedStatus"] as? String == "stopped" && (out["stopAgain"] as? String ?? "").hasPrefix("ArchiveError"), "\(out)")
        let final = out["final"] as? [String: Any] ?? [:]
        #expect(final["status"] as? String == "available" && (final["size"] as? Int ?? 0) > 0, "\(out)")
        #expect((final["duration"] as? Int ?? -1) >= 2, "the script waited 3 s between start and stop: \(final)")
        #expect((out["deletedGet"] as? String ?? "").hasPrefix("NotFoundError") && (out["deleteAgain"] as? String ?? "").hasPrefix("NotFoundError"), "\(out)")
        let quietOut = out["quiet"] as? [String: Any]
        #expect(quietOut?["start"] as? String == "paused" && quietOut?["get"] as? String == "paused" && out["quietStopped"] as? String == "stopped", "\(out)")

        // The ZIP: A's file with VP8 + Opus, B's with Opus only (added with has_video=False).
        let url = try #require(final["url"] as? String)
        let zip = directory + "/download.zip"
        let download = try ArchiveTools.get(url)
        #expect(download.status == 200 && download.body.count == final["size"] as? Int)
        #expect(FileManager.default.createFile(atPath: zip, contents: Data(download.body)))
        let unpacked = directory + "/unpacked"
        try ArchiveTools.unzip(zip, into: unpacked)
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: unpacked + "/manifest.json"))) as? [String: Any])
        let files = manifest["files"] as? [[String: Any]] ?? []
        #expect(Set(files.compactMap { $0["streamId"] as? String }) == [streamA, streamB], "\(manifest)")
        // The SDK's duration is the manifest's: the last file's stop offset, in whole seconds.
        let lastStop = Double(files.compactMap { $0["stopTimeOffset"] as? Int }.max() ?? -10_000) / 1000
        #expect(abs(Double(final["duration"] as? Int ?? -1) - lastStop) <= 0.5, "duration \(final) vs manifest \(lastStop) s")
        print("archive API (Python SDK): duration \(final["duration"] ?? "?") s, size \(final["size"] ?? "?") bytes, last stop offset \(lastStop) s")
        let codecsA = try ArchiveTools.codecs(unpacked + "/" + (files.first { $0["streamId"] as? String == streamA }?["filename"] as? String ?? "?"))
        let codecsB = try ArchiveTools.codecs(unpacked + "/" + (files.first { $0["streamId"] as? String == streamB }?["filename"] as? String ?? "?"))
        #expect(codecsA["video"] == "vp8" && codecsA["audio"] == "opus", "\(codecsA)")
        #expect(codecsB["video"] == nil && codecsB["audio"] == "opus", "\(codecsB)")
    }

    /// `maxDuration` (sent by raw request with the SDK's own headers: this SDK version has
    /// no parameter for it) stops an individual archive by itself after 60 s, the
    /// shortest OpenTok allows; the SDK then reads it available with about 60 s recorded.
    static let maxDurationScript = """
    import json, sys, time, requests, opentok
    req = json.load(sys.stdin)
    c = opentok.Client(req["apiKey"], req["apiSecret"], api_url=req["apiUrl"])
    body = {"sessionId": req["sessionId"], "outputMode": "individual", "maxDuration": 60}
    r = requests.post(c.endpoints.get_archive_url(), json=dict(body, maxDuration=59), headers=c.get_json_headers())
    out = {"tooShort": r.status_code}
    r = requests.post(c.endpoints.get_archive_url(), json=body, headers=c.get_json_headers())
    aid = r.json()["id"]
    g = c.get_archive(aid)
    out["started"] = g.status
    waited = 0.0
    while g.status in ("started", "paused") and waited < 180:
        time.sleep(0.5)
        waited += 0.5
        g = c.get_archive(aid)
    for _ in range(300):
        if g.status in ("available", "failed"):
            break
        time.sleep(0.1)
        g = c.get_archive(aid)
    raw = requests.get(c.endpoints.get_archive_url(aid), headers=c.get_headers()).json()
    out.update({"status": g.status, "duration": g.duration, "size": g.size, "url": g.url, "reason": raw.get("reason")})
    print(json.dumps(out))
    """

    @Test func maxDurationStopsTheArchiveByItself() throws {
        let directory = NSTemporaryDirectory() + "otkit-archive-maxdur-py-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = try Self.router(directory)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let publisher = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                             token: try kit.token(sessionId, .publisher))
        defer { publisher.close() }
        try publisher.publish(name: "a", frequency: 440)
        let input: [String: Any] = ["apiKey": Self.project.apiKey, "apiSecret": Self.project.apiSecret,
                                    "apiUrl": router.baseURL, "sessionId": sessionId]
        let out = try #require(try PythonSDK.json(Self.maxDurationScript, input: input, timeoutSeconds: 300) as? [String: Any])
        #expect(out["tooShort"] as? Int == 400 && out["started"] as? String == "started", "\(out)")
        #expect(out["status"] as? String == "available" && out["reason"] as? String == "maximum duration exceeded", "\(out)")
        #expect((out["duration"] as? Int ?? -1) >= 58 && (out["size"] as? Int ?? 0) > 0 && out["url"] is String, "\(out)")
        print("maxDuration 60: the archive stopped itself with \(out["duration"] ?? "?") s recorded, \(out["size"] ?? "?") bytes")
    }

    static func router(_ directory: String) throws -> Router {
        var configuration = RouterConfiguration()
        configuration.projects = [project]
        configuration.logLevel = .error
        configuration.archiveDirectory = directory
        return try Router(configuration: configuration, media: try MediaRouter())
    }
}
