import Foundation
import OTSignaling
import OTTestSupport
import Testing

/// `otkit archive` as a user runs it, against `otkit router --archive-dir` with
/// `otkit publish --test-pattern --tone` publishing: start an individual archive, see it
/// listed and got, stop it, download the ZIP, unzip it (the manifest names the stream, the
/// WebM is VP8 + Opus per ffprobe, with packets spanning at least 2 s), delete it; plus the
/// usage errors (exit 2) and the router's refusals (exit 1 with its message).
@Suite(.serialized)
struct ArchiveCommandTests {
    static let project = ProjectCredentials(apiKey: "6607", apiSecret: "6607aa11bb22cc33dd44ee55ff6677889900aabb")
    var environment: [String: String] { ["OTKIT_API_KEY": Self.project.apiKey, "OTKIT_API_SECRET": Self.project.apiSecret] }

    private func archive(_ words: [String], _ url: String) throws -> Subprocess.Result {
        try Subprocess_run(["archive"] + words + ["--router", url], environment: environment, timeout: 60)
    }

    private func json(_ result: Subprocess.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [String: Any] ?? [:]
    }

    @Test func startListStopDownloadUnzipDelete() throws {
        let dir = try temporaryDirectory("archive-cmd")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let router = try BackgroundProcess(["router", "--port", "0", "--media-port", "0", "--archive-dir", dir + "/archives"],
                                           environment: environment, directory: dir)
        defer { router.terminate(); _ = router.waitForExit(10) }
        var url = ""
        #expect(poll(15) { url = listeningURL(router.stdout); return !url.isEmpty }, "router: \(router.stdout) \(router.stderr)")

        let token = try Subprocess_run(["token", "--router", url, "--role", "publisher", "--data", "cam"], environment: environment)
        let lines: [String: String] = keyValues(token.stdout)
        let sessionId = try #require(lines["OTKIT_SESSION"])
        let publisher = try BackgroundProcess(["publish", "--router", url, "--session", sessionId, "--token", try #require(lines["OTKIT_TOKEN"]),
                                               "--test-pattern", "--tone", "--resolution", "320x240", "--fps", "30"], directory: dir)
        defer { publisher.terminate(); _ = publisher.waitForExit(10) }
        let rest = REST(baseURL: url, project: Self.project)
        var streams: [String] = []
        #expect(poll(30) { streams = (try? rest.streamIds(sessionId)) ?? []; return streams.count == 1 }, "publisher: \(publisher.stderr)")
        let streamId = try #require(streams.first)

        let started = try archive(["start", "--session", sessionId, "--name", "cli", "--output-mode", "individual"], url)
        #expect(started.status == 0, "\(started)")
        let id = try #require(json(started)["id"] as? String, "\(started)")
        #expect(json(started)["status"] as? String == "started" && json(started)["outputMode"] as? String == "individual")
        let again = try archive(["start", "--session", sessionId], url)
        #expect(again.status == 1 && again.stderr.contains("409") && again.stderr.contains("already being recorded"), "\(again)")

        // Record at least 2.5 s of media time: the file is written incrementally, so poll
        // its video packets' times until they span that much (no fixed sleep).
        let webm = dir + "/archives/\(id)/\(streamId).webm"
        #expect(poll(60, every: 0.5) { ((try? Self.videoTimes(webm)) ?? []).span >= 2.5 }, "the recording's file grows")
        let listed = try archive(["list", "--session", sessionId, "--count", "5"], url)
        #expect(listed.status == 0 && json(listed)["count"] as? Int == 1
            && (json(listed)["items"] as? [[String: Any]])?.first?["id"] as? String == id, "\(listed)")
        let got = try archive(["get", "--id", id], url)
        #expect(json(got)["name"] as? String == "cli", "\(got)")
        let stopped = try archive(["stop", "--id", id], url)
        #expect(stopped.status == 0 && json(stopped)["status"] as? String == "stopped", "\(stopped)")

        let zip = dir + "/cli.zip"
        let download = try archive(["download", "--id", id, "--out", zip, "--wait", "60"], url)
        #expect(download.status == 0 && download.stdout.contains("wrote \(zip)"), "\(download)")
        let size = (try FileManager.default.attributesOfItem(atPath: zip))[.size] as? Int ?? 0
        let gotAfter = try archive(["get", "--id", id], url)
        #expect(size > 0 && json(gotAfter)["size"] as? Int == size, "\(gotAfter)")
        let unpacked = dir + "/unpacked"
        let unzip = try Subprocess.run("/usr/bin/unzip", ["-o", "-q", zip, "-d", unpacked])
        #expect(unzip.status == 0, "\(unzip)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: unpacked + "/manifest.json"))) as? [String: Any])
        let file = try #require((manifest["files"] as? [[String: Any]])?.first, "\(manifest)")
        #expect(file["streamId"] as? String == streamId && file["connectionData"] as? String == "cam", "\(manifest)")
        let filename = try #require(file["filename"] as? String)
        let probe = try Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0",
                                                            unpacked + "/" + filename])
        #expect(Set(probe.stdout.split(separator: "\n").map(String.init)) == ["vp8", "opus"], "\(probe)")
        let pts = try Self.videoTimes(unpacked + "/" + filename)
        #expect(pts.span >= 2.5, "media time recorded: \(pts.count) video packets over \(pts.span) s")
        print("otkit archive: \(size) bytes, \(pts.count) video packets over \(pts.span) s of media time")

        let deleted = try archive(["delete", "--id", id], url)
        #expect(deleted.status == 0, "\(deleted)")
        let gone = try archive(["get", "--id", id], url)
        #expect(gone.status == 1 && gone.stderr.contains("404") && gone.stderr.contains("Archive not found"), "\(gone)")
    }

    /// The video packets' times (seconds) in a WebM, per ffprobe.
    static func videoTimes(_ path: String) throws -> [Double] {
        let times = try Subprocess.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time",
                                                            "-of", "csv=p=0", path])
        return times.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    @Test func usageErrorsExitTwo() throws {
        let cases: [[String]] = [
            ["archive"],
            ["archive", "fly", "--router", "http://127.0.0.1:9"],
            ["archive", "stop", "--router", "http://127.0.0.1:9"],
            ["archive", "start", "--router", "http://127.0.0.1:9"],
            ["archive", "start", "--router", "http://127.0.0.1:9", "--session", "x", "--max-duration", "59"],
            ["archive", "start", "--router", "http://127.0.0.1:9", "--session", "x", "--output-mode", "mp4"],
            ["archive", "streams", "--router", "http://127.0.0.1:9", "--id", "a"],
            ["archive", "download", "--router", "http://127.0.0.1:9", "--id", "a"],
            ["archive", "get", "--id", "a"],
            ["archive", "get", "--router", "http://127.0.0.1:9", "--id", "../etc"],
        ]
        for words in cases {
            let result = try Subprocess_run(words, environment: environment)
            #expect(result.status == 2 && result.stderr.contains("otkit:"), "\(words): \(result)")
        }
        let help = try Subprocess_run(["archive", "--help"])
        #expect(help.status == 0 && help.stdout.contains("download"))
    }
}

extension [Double] {
    /// The largest minus the smallest (0 when empty).
    var span: Double { (self.max() ?? 0) - (self.min() ?? 0) }
}
