import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Individual archives recorded by the router: real publishers (OTKit's pipeline, test
/// pattern + tone) through the SFU, the ZIP fetched from the archive's signed `url`, the
/// files checked by ffprobe/ffmpeg.
@Suite(.serialized)
struct IndividualArchiveTests {
    static let project = ProjectCredentials(apiKey: "4718", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    private let kit = SessionTestKit(project: Self.project)

    private func startRouter(archiveDirectory: String) throws -> Router {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        configuration.archiveDirectory = archiveDirectory
        return try Router(configuration: configuration, media: try MediaRouter())
    }

    private func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "otkit-archive-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func seconds(since start: UInt64) -> Double { Double(MonotonicClock.nanoseconds() - start) / 1e9 }

    /// Waits until the archive leaves `stopped` (its ZIP written or its failure known).
    private func settled(_ router: Router, _ id: String) -> [String: Any] {
        var last: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            last = (try? ArchiveTools.archive(router, Self.project, id)) ?? [:]
            if let status = last["status"] as? String, status == "available" || status == "failed" { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return last
    }

    /// The acceptance timeline: 20 s, one publisher leaving at 10 s and back at
    /// 15 s. Three files; offsets checked against the times the test itself measured around
    /// each action, within the issue's ± 0.3 s; each file's media duration (ffprobe) within
    /// 0.3 s of its manifest span; every frame decoded by ffmpeg, and the frame numbers
    /// stamped in the decoded pictures cover ≥ 95 % of the numbers between the file's
    /// first and last (the frames the publisher sent while the stream was recorded).
    @Test func twoPublishersOneLeavingAndComingBackGiveThreeFilesAndTheirOffsets() throws {
        let directory = try scratch()
        defer { if ProcessInfo.processInfo.environment["KEEP"] == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let router = try startRouter(archiveDirectory: directory + "/archives")
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                     token: try kit.token(sessionId, .publisher, data: "alice"))
        defer { a.close() }
        let b = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                     token: try kit.token(sessionId, .publisher, data: "bob"))
        defer { b.close() }
        let streamA = try a.publish(name: "a", frequency: 440)
        let streamB1 = try b.publish(name: "b", frequency: 660)
        Thread.sleep(forTimeInterval: 0.5)  // both streams flowing before the archive starts

        let before = MonotonicClock.nanoseconds()
        let started = try rest.post("archive", ["sessionId": sessionId, "outputMode": "individual", "name": "acceptance"])
        let start = MonotonicClock.nanoseconds()
        #expect(started.status == 200, "\(started.body)")
        let archiveId = try #require(started.body["id"] as? String)
        let startUncertainty = Double(start - before) / 1e9

        Thread.sleep(forTimeInterval: 10)
        let leaving = Self.seconds(since: start)
        b.unpublish()
        let left = Self.seconds(since: start)
        Thread.sleep(forTimeInterval: max(0, 15 - Self.seconds(since: start)))
        let returning = Self.seconds(since: start)
        let streamB2 = try b.publish(name: "b", frequency: 660)
        let returned = Self.seconds(since: start)
        Thread.sleep(forTimeInterval: max(0, 20 - Self.seconds(since: start)))
        let stopping = Self.seconds(since: start)
        let stopped = try rest.post("archive/\(archiveId)/stop")
        let stop = Self.seconds(since: start)
        #expect(stopped.status == 200 && stopped.body["status"] as? String == "stopped", "\(stopped.body)")

        let archive = settled(router, archiveId)
        #expect(archive["status"] as? String == "available", "\(archive)")
        #expect((archive["size"] as? Int ?? 0) > 0 && abs((archive["duration"] as? Int ?? 0) - Int(stop.rounded())) <= 1, "\(archive)")
        let url = try #require(archive["url"] as? String, "\(archive)")
        let download = try ArchiveTools.get(url)
        #expect(download.status == 200 && download.body.count == archive["size"] as? Int)
        let zipPath = directory + "/download.zip"
        try Data(download.body).write(to: URL(fileURLWithPath: zipPath))
        let unpacked = directory + "/unpacked"
        try ArchiveTools.unzip(zipPath, into: unpacked)

        let manifestData = try Data(contentsOf: URL(fileURLWithPath: unpacked + "/manifest.json"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        #expect(manifest["id"] as? String == archiveId && manifest["sessionId"] as? String == sessionId
                && manifest["name"] as? String == "acceptance")
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(files.count == 3, "\(files)")
        let webms = try FileManager.default.contentsOfDirectory(atPath: unpacked).filter { $0.hasSuffix(".webm") }
        #expect(webms.count == 3, "\(webms)")
        func entry(_ streamId: String) -> [String: Any]? { files.first { $0["streamId"] as? String == streamId } }
        func offsets(_ streamId: String) -> (start: Double, stop: Double)? {
            guard let file = entry(streamId), let start = file["startTimeOffset"] as? Int, let stop = file["stopTimeOffset"] as? Int
            else { return nil }
            return (Double(start) / 1000, Double(stop) / 1000)
        }
        // Each offset lies within 0.3 s of the moment measured around the action it reflects
        // (the window between sending the request and its answer, widened by 0.3 s).
        func near(_ value: Double?, _ from: Double, _ to: Double) -> Bool {
            guard let value else { return false }
            return value >= from - 0.3 && value <= to + 0.3
        }
        let a0 = offsets(streamA), b1 = offsets(streamB1), b2 = offsets(streamB2)
        #expect(near(a0?.start, 0, startUncertainty) && near(a0?.stop, stopping, stop), "A: \(String(describing: a0)), stop \(stopping)…\(stop)")
        #expect(near(b1?.start, 0, startUncertainty) && near(b1?.stop, leaving, left), "B1: \(String(describing: b1)), left \(leaving)…\(left)")
        #expect(near(b2?.start, returning, returned) && near(b2?.stop, stopping, stop),
                "B2: \(String(describing: b2)), back \(returning)…\(returned), stop \(stopping)…\(stop)")
        #expect(entry(streamA)?["connectionData"] as? String == "alice" && entry(streamB2)?["connectionData"] as? String == "bob")
        for file in files {
            let name = try #require(file["filename"] as? String)
            let path = unpacked + "/" + name
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
            #expect(size == file["size"] as? Int, "\(name): the manifest's size is the file's")
            #expect(try ArchiveTools.codecs(path) == ["video": "vp8", "audio": "opus"], "\(name)")
            let errors = try ArchiveTools.decodeErrors(path)
            #expect(errors.isEmpty, "\(name) decodes cleanly: \(errors)")
            // Every frame and packet is there, in increasing time, spanning the file's entry.
            let video = try ArchiveTools.packetTimes(path, stream: "v"), audio = try ArchiveTools.packetTimes(path, stream: "a")
            #expect(zip(video, video.dropFirst()).allSatisfy { $0 < $1 } && zip(audio, audio.dropFirst()).allSatisfy { $0 < $1 })
            let span = Double((file["stopTimeOffset"] as? Int ?? 0) - (file["startTimeOffset"] as? Int ?? 0)) / 1000
            #expect(Double(video.count) >= span * 30 * 0.9 && Double(audio.count) >= span * 50 * 0.9,
                    "\(name): \(video.count) frames, \(audio.count) audio packets over \(span) s")
            // The file's media duration is its manifest span (± 0.3 s).
            let probed = try ComposedMediaProbe.summary(path).duration ?? 0
            #expect(abs(probed - span) <= 0.3, "\(name): ffprobe \(probed) s, manifest \(span) s")
            // The pictures themselves: the stamped frame numbers of every decoded frame.
            let stamps = try ComposedMediaProbe.stamps(path, width: 160, height: 120, scratch: directory)
            let numbers = Set(stamps.compactMap { $0 })
            let first = numbers.min() ?? 0, last = numbers.max() ?? 0
            let sent = Int(last) - Int(first) + 1
            print("\(name): \(stamps.count) frames decoded, \(numbers.count) distinct numbers of \(sent) sent "
                  + "(\(first)…\(last)), \(span) s in the manifest, \(probed) s by ffprobe")
            #expect(!numbers.isEmpty && Double(numbers.count) >= 0.95 * Double(sent), "\(name): \(numbers.count) of \(sent) frames")
            #expect(Double(sent) >= (span - 0.3) * 30 * 0.95, "\(name): \(sent) frames sent over \(span) s")
        }
    }

    /// The download link is the router's to check: no signature, a tampered one, another
    /// archive's, or an expired one get 403; the right one gets the ZIP.
    @Test func theArchiveLinkIsSignedAndExpires() throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = try startRouter(archiveDirectory: directory)
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let a = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                     token: try kit.token(sessionId, .publisher))
        defer { a.close() }
        try a.publish(name: "a", frequency: 440)
        let started = try rest.post("archive", ["sessionId": sessionId, "outputMode": "individual"])
        let archiveId = try #require(started.body["id"] as? String, "\(started.body)")
        Thread.sleep(forTimeInterval: 1.5)
        _ = try rest.post("archive/\(archiveId)/stop")
        let archive = settled(router, archiveId)
        let url = try #require(archive["url"] as? String, "\(archive)")
        let components = try #require(URLComponents(string: url))
        let expires = try #require(components.queryItems?.first { $0.name == "expires" }?.value.flatMap { Int64($0) })
        let signature = try #require(components.queryItems?.first { $0.name == "signature" }?.value)
        let base = router.baseURL + components.path
        let right = try ArchiveTools.get(url)
        #expect(right.status == 200 && right.body.count == archive["size"] as? Int && right.body.starts(with: [0x50, 0x4B, 0x03, 0x04]),
                "the ZIP's bytes")
        #expect(try ArchiveTools.get(base).status == 403, "no signature")
        var flipped = Array(signature)
        flipped[0] = flipped[0] == "0" ? "1" : "0"
        #expect(try ArchiveTools.get(base + "?expires=\(expires)&signature=\(String(flipped))").status == 403, "tampered signature")
        #expect(try ArchiveTools.get(base + "?expires=\(expires + 3600)&signature=\(signature)").status == 403, "expiry moved")
        #expect(try ArchiveTools.get(router.baseURL + "/archive-file/other.zip?expires=\(expires)&signature=\(signature)").status == 403,
                "another archive's name")
        // A link this router signed that expired a minute ago (signed by the router's own
        // signer, as the REST body would have signed it an hour earlier).
        let now = Int64(Date().timeIntervalSince1970)
        let stale = router.service.hub.archiveLinks.path(archiveId: archiveId, expires: now - 60)
        #expect(try ArchiveTools.get(router.baseURL + stale).status == 403, "expired")
        let fresh = router.service.hub.archiveLinks.path(archiveId: archiveId, expires: now + 60)
        #expect(try ArchiveTools.get(router.baseURL + fresh).status == 200, "the same link unexpired")
    }
}
