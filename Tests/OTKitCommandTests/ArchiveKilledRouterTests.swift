import Foundation
import OTMedia
import OTNet
import OTSignaling
import OTTestSupport
import Testing

/// Issue 18: a router killed with SIGKILL in the middle of an individual archive leaves
/// WebM files that play up to its end, and the next router on the same archive directory
/// recovers that archive: the WebM bundled into the ZIP with OpenTok's manifest, status
/// `available`, its reason saying it was recovered after a crash. All separate processes: `otkit router
/// --archive-dir`, `otkit publish --test-pattern --tone` (the native client), ffprobe and
/// ffmpeg reading the file. Media is counted in frames (the publisher's `framesSent`, the
/// frame numbers stamped in the recorded pictures), never in wall time.
@Suite(.serialized)
struct ArchiveKilledRouterTests {
    static let project = ProjectCredentials(apiKey: "1818", apiSecret: "1818aa11bb22cc33dd44ee55ff6677889900aabb")
    var environment: [String: String] { ["OTKIT_API_KEY": Self.project.apiKey, "OTKIT_API_SECRET": Self.project.apiSecret] }

    @Test func aRouterKilledMidArchiveLeavesPlayableWebMAndTheNextRouterRecoversIt() throws {
        let ffprobe = try #require(Subprocess.which("ffprobe"), "ffprobe is required (scripts/install-deps.sh installs it)")
        let ffmpeg = try #require(Subprocess.which("ffmpeg"), "ffmpeg is required (scripts/install-deps.sh installs it)")
        let dir = try temporaryDirectory("archive-kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let archives = dir + "/archives"

        let router = try startRouter(archives: archives, directory: dir)
        let url = try #require(routerURL(router))
        let token = try Subprocess_run(["token", "--router", url, "--role", "publisher", "--data", "camera 1"], environment: environment)
        let lines = keyValues(token.stdout)
        let sessionId = try #require(lines["OTKIT_SESSION"], "\(token)")
        let publisherToken = try #require(lines["OTKIT_TOKEN"])
        let publisher = try BackgroundProcess(["publish", "--router", url, "--session", sessionId, "--token", publisherToken,
                                               "--test-pattern", "--tone", "--resolution", "320x240", "--fps", "30",
                                               "--log-format", "json"], directory: dir)
        defer { publisher.terminate(); _ = publisher.waitForExit(10) }
        let rest = REST(baseURL: url, project: Self.project)
        #expect(poll(30) { ((try? rest.streamIds(sessionId)) ?? []).count == 1 }, "publisher: \(publisher.stdout.suffix(800)) \(publisher.stderr)")
        let streamId = try #require(try rest.streamIds(sessionId).first)

        // Start the individual archive, then let 10 s of frames (300 at 30 fps) be sent into it.
        let started = try archiveRequest("POST", url, "archive", ["sessionId": sessionId, "outputMode": "individual"])
        #expect(started.status == 200, "\(started)")
        let archiveId = try #require(started.body["id"] as? String)
        var sentAtStart = 0
        #expect(poll(20) { sentAtStart = framesSent(publisher.stdout); return sentAtStart > 0 }, "\(publisher.stdout.suffix(800))")
        var sent = 0
        #expect(poll(90) { sent = framesSent(publisher.stdout); return sent >= sentAtStart + 300 },
                "the publisher sent \(sent - sentAtStart) frames after the archive started")
        let record = archives + "/" + archiveId + "/archive.json"
        #expect(storedStatus(record) == "started", "the record is written when the archive starts")

        kill(router.process.processIdentifier, SIGKILL)
        #expect(router.waitForExit(20) != nil, "the router died")
        let sentAtKill = framesSent(publisher.stdout)
        print("archive-kill: \(sentAtKill - sentAtStart) frames sent between the archive's start and the kill")

        // The file: VP8 + Opus, ≥ 9 s in each track without cues or duration, frames decoding
        // with their stamped numbers, ≥ 95 % of the span present.
        let webm = archives + "/" + archiveId + "/" + streamId + ".webm"
        #expect(FileManager.default.fileExists(atPath: webm), "\(String(describing: try? FileManager.default.contentsOfDirectory(atPath: archives + "/" + archiveId)))")
        let video = try packetTimes(ffprobe, webm, "v")
        let audio = try packetTimes(ffprobe, webm, "a")
        let videoSpan = (video.last ?? 0) - (video.first ?? 0)
        let audioSpan = (audio.last ?? 0) - (audio.first ?? 0)
        print("archive-kill: the killed router's WebM holds \(video.count) video packets over \(videoSpan) s, \(audio.count) audio packets over \(audioSpan) s")
        #expect(videoSpan >= 9 && audioSpan >= 9, "≥ 9 s of 10 s recorded: video \(videoSpan) s, audio \(audioSpan) s")
        let y4m = dir + "/decoded.y4m"
        let decode = try Subprocess.run(ffmpeg, ["-v", "error", "-i", webm, "-map", "0:v", "-fps_mode", "passthrough",
                                                 "-pix_fmt", "yuv420p", "-y", y4m], timeoutSeconds: 120)
        #expect(decode.status == 0, "\(decode)")
        let numbers = try stampedNumbers(inY4M: y4m).compactMap { $0 }
        let first = Int(numbers.first ?? 0), last = Int(numbers.last ?? 0)
        let span = last - first + 1
        print("archive-kill: decoded frames \(numbers.count), stamped numbers \(first)…\(last)")
        #expect(isIncreasing(numbers), "frame numbers increase")
        // The stamps are the publisher's frame numbers (from 0): the file reaches to within a
        // second (30 frames) of the last count the publisher reported before the kill.
        #expect(last + 1 + 30 >= sent, "the last recorded frame is \(last); the publisher had sent \(sent) before the kill")
        #expect(span >= 270 && Set(numbers).count * 100 >= span * 95,
                "\(Set(numbers).count) of \(span) frame numbers present (at least 9 s of frames)")

        // A router started on the same directory recovers the archive: its WebM bundled into
        // the ZIP with a manifest, `available`, the reason saying it was recovered after a crash.
        let restarted = try startRouter(archives: archives, directory: dir)
        defer { restarted.terminate(); _ = restarted.waitForExit(10) }
        let newURL = try #require(routerURL(restarted))
        let got = try archiveRequest("GET", newURL, "archive/\(archiveId)")
        #expect(got.status == 200, "\(got)")
        #expect(got.body["status"] as? String == "available", "\(got.body)")
        let reason = got.body["reason"] as? String ?? ""
        #expect(reason.contains("recovered after a crash") && reason.contains("killed or crashed"), "\(reason)")
        #expect(storedStatus(record) == "available", "the record on disk says available too")
        #expect(((got.body["duration"] as? Int) ?? 0) >= 9, "\(got.body)")
        let link = try #require(got.body["url"] as? String, "\(got.body)")
        let download = try HTTPClient.request("GET", link)
        #expect(download.status == 200 && download.body.count == got.body["size"] as? Int, "\(download.status)")
        let zip = dir + "/recovered.zip", unpacked = dir + "/recovered"
        try Data(download.body).write(to: URL(fileURLWithPath: zip))
        let unzip = try #require(Subprocess.which("unzip"), "unzip is required")
        #expect(try Subprocess.run(unzip, ["-o", "-q", zip, "-d", unpacked]).status == 0)
        let manifestData = try #require(FileManager.default.contents(atPath: unpacked + "/manifest.json"), "the ZIP holds manifest.json")
        let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]], "\(manifest)")
        #expect(manifest["id"] as? String == archiveId && files.count == 1, "\(manifest)")
        let entry = try #require(files.first)
        #expect(entry["streamId"] as? String == streamId && entry["filename"] as? String == streamId + ".webm", "\(entry)")
        let bundled = unpacked + "/" + streamId + ".webm"
        let bundledSize = ((try? FileManager.default.attributesOfItem(atPath: bundled))?[.size] as? NSNumber)?.intValue
        #expect(bundledSize != nil && bundledSize == entry["size"] as? Int, "\(entry)")
        let manifestSpan = Double((entry["stopTimeOffset"] as? Int ?? 0) - (entry["startTimeOffset"] as? Int ?? 0)) / 1000
        #expect(manifestSpan >= 9 && abs(manifestSpan - max(videoSpan, audioSpan)) <= 0.3,
                "manifest span \(manifestSpan) s, media \(videoSpan) / \(audioSpan) s")
        #expect(try packetTimes(ffprobe, bundled, "v").count == video.count, "the bundled WebM is the recorded one")
        let listed = try archiveRequest("GET", newURL, "archive")
        #expect((listed.body["count"] as? Int) == 1, "\(listed.body)")

        // Deleting it removes its directory (record and files) and its ZIP, so it stays gone after another restart.
        let deleted = try archiveRequest("DELETE", newURL, "archive/\(archiveId)")
        #expect(deleted.status == 204, "\(deleted)")
        #expect(poll(20) { !FileManager.default.fileExists(atPath: archives + "/" + archiveId) }, "the archive's directory is removed")
        #expect(poll(20) { !FileManager.default.fileExists(atPath: archives + "/" + archiveId + ".zip") }, "the archive's ZIP is removed")
    }

    private func startRouter(archives: String, directory: String) throws -> BackgroundProcess {
        try BackgroundProcess(["router", "--port", "0", "--media-port", "0", "--archive-dir", archives],
                              environment: environment, directory: directory)
    }

    private func routerURL(_ router: BackgroundProcess) -> String? {
        var url = ""
        guard poll(30, { url = listeningURL(router.stdout); return !url.isEmpty }) else {
            Issue.record("the router did not start: \(router.stdout) \(router.stderr)")
            return nil
        }
        return url
    }

    /// A project REST call on `/v2/project/{apiKey}/<path>`: status and JSON object.
    private func archiveRequest(_ method: String, _ url: String, _ path: String,
                                _ body: [String: Any]? = nil) throws -> (status: Int, body: [String: Any]) {
        var headers = ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project)]
        var bytes: [UInt8] = []
        if let body {
            headers["Content-Type"] = "application/json"
            bytes = [UInt8](try JSONSerialization.data(withJSONObject: body))
        }
        let response = try HTTPClient.request(method, url + "/v2/project/\(Self.project.apiKey)/" + path, headers: headers, body: bytes)
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        return (response.status, object)
    }
}

/// The publisher's last reported `framesSent` (its JSON status lines), 0 before the first.
private func framesSent(_ output: String) -> Int {
    for line in output.split(separator: "\n").reversed() {
        guard let range = line.range(of: "\"framesSent\":") else { continue }
        return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }
    return 0
}

/// The `status` in an archive.json, nil when unreadable.
private func storedStatus(_ path: String) -> String? {
    guard let data = FileManager.default.contents(atPath: path),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
    return object["status"] as? String
}

/// ffprobe's packet times (seconds) of one track ("v" or "a"), in file order.
private func packetTimes(_ ffprobe: String, _ file: String, _ stream: String) throws -> [Double] {
    let result = try Subprocess.run(ffprobe, ["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time",
                                              "-of", "csv=p=0", file], timeoutSeconds: 60)
    #expect(result.status == 0, "ffprobe: \(result.stderr)")
    return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
}
