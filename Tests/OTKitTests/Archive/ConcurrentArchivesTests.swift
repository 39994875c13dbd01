import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTRecording
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Archives side by side (`multiArchiveTag`) record the same stream: two individual archives
/// and a composed one start on one publisher's stream at once, and each file holds that
/// stream. Before `RecordingTaps`, a stream fed one sink: the last archive to attach took
/// the stream from the others (their files ended at its start), and the first to stop
/// detached it from every one.
@Suite(.serialized)
struct ConcurrentArchivesTests {
    static let project = ProjectCredentials(apiKey: "4721", apiSecret: "0123456789abcdef0123456789abcdef01234721")
    private let kit = SessionTestKit(project: Self.project)

    @Test func twoIndividualArchivesAndAComposedOneRecordTheSameStream() throws {
        let (directory, router) = try Self.startRouter("otkit-concurrent-archives-")
        defer { router.stop(); try? FileManager.default.removeItem(atPath: directory) }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let publisher = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                             token: try kit.token(sessionId, .publisher, data: "p"))
        defer { publisher.close() }
        try publisher.publish(name: "p", frequency: 440, firstFrameNumber: 100_000)  // a flat picture reads as stamp 0
        Thread.sleep(forTimeInterval: 0.5)  // the stream flowing before the archives start

        var ids: [String] = []
        for (tag, mode) in [("one", "individual"), ("two", "individual"), ("three", "composed")] {
            let started = try rest.post("archive", ["sessionId": sessionId, "outputMode": mode, "multiArchiveTag": tag])
            #expect(started.status == 200, "\(tag): \(started.body)")
            ids.append(try #require(started.body["id"] as? String, "\(tag): \(started.body)"))
        }
        Thread.sleep(forTimeInterval: 4)
        // Stopped one by one: the first to stop must not detach the stream from the others.
        for id in ids {
            #expect(try rest.post("archive/\(id)/stop").status == 200)
            Thread.sleep(forTimeInterval: 1)
        }

        for (index, id) in ids.enumerated() {
            let archive = Self.settled(router, id)
            #expect(archive["status"] as? String == "available", "\(archive)")
            let url = try #require(archive["url"] as? String, "\(archive)")
            let download = try ArchiveTools.get(url)
            #expect(download.status == 200)
            // Each archive was recording for at least 4 s plus its place in the stop order.
            let atLeast = 4.0 + Double(index)
            let file: String
            if index < 2 {
                let zip = directory + "/\(id).zip", unpacked = directory + "/\(id)"
                try Data(download.body).write(to: URL(fileURLWithPath: zip))
                try ArchiveTools.unzip(zip, into: unpacked)
                let webm = try #require(try FileManager.default.contentsOfDirectory(atPath: unpacked).first { $0.hasSuffix(".webm") })
                file = unpacked + "/" + webm
            } else {
                file = directory + "/\(id).mp4"
                try Data(download.body).write(to: URL(fileURLWithPath: file))
            }
            let video = try ArchiveTools.packetTimes(file, stream: "v")
            let span = (video.last ?? 0) - (video.first ?? 0)
            print("concurrent archives: \(index < 2 ? "individual" : "composed") \(id): \(video.count) video frames over \(span) s")
            if index < 2 {
                // The stream's own frames (30 fps) across the whole time it recorded (90 % at least).
                #expect(span >= atLeast - 0.5 && Double(video.count) >= (atLeast - 0.5) * 30 * 0.9,
                        "archive \(index): \(video.count) frames over \(span) s, recorded ≥ \(atLeast) s")
            } else {
                // The composer draws a canvas every tick whatever comes in: the stream's own stamp
                // must be in the picture early and late, and have moved on (the stream kept coming).
                let cell = LayoutMath.cells(for: [LayoutStream()], layout: .standard, canvas: .standard)[0]
                let rect = cell.fitting(sourceWidth: 160, sourceHeight: 120)
                var stamps: [UInt32?] = []
                for time in [1.0, atLeast - 1] {
                    let frame = try #require(try ComposedMediaProbe.grayFrame(file, at: time, width: 640, height: 480, scratch: directory))
                    stamps.append(ComposedMediaProbe.stamp(in: frame, canvasWidth: 640, x: rect.x, y: rect.y, width: rect.width,
                                                           height: rect.height, sourceWidth: 160, sourceHeight: 120))
                }
                let early = try #require(stamps[0], "the stream's picture at 1 s"), late = try #require(stamps[1], "and at \(atLeast - 1) s")
                #expect(early >= 100_000 && Double(late) >= Double(early) + (atLeast - 3) * 30 * 0.9, "stamps \(early) → \(late)")
            }
        }
    }

    /// A composed archive in manual stream mode composes only the streams `PATCH …/streams`
    /// added: of two publishers, only B was added, so B fills the canvas alone (one stream in
    /// `bestFit`) and A's stamp is nowhere in it.
    @Test func aManualComposedArchiveComposesOnlyTheStreamsAdded() throws {
        let (directory, router) = try Self.startRouter("otkit-manual-composed-")
        defer { router.stop(); try? FileManager.default.removeItem(atPath: directory) }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        var streams: [String] = []
        var publishers: [ArchivePublisher] = []
        defer { for publisher in publishers { publisher.close() } }
        for (index, name) in ["a", "b"].enumerated() {
            let publisher = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                                 token: try kit.token(sessionId, .publisher, data: name))
            publishers.append(publisher)
            streams.append(try publisher.publish(name: name, frequency: 440, firstFrameNumber: UInt32(index + 1) * 100_000))
        }
        Thread.sleep(forTimeInterval: 0.5)
        let started = try rest.post("archive", ["sessionId": sessionId, "streamMode": "manual"])
        #expect(started.status == 200 && started.body["outputMode"] as? String == "composed", "\(started.body)")
        let id = try #require(started.body["id"] as? String)
        let added = try HTTPClient.request("PATCH", router.baseURL + "/v2/project/\(Self.project.apiKey)/archive/\(id)/streams",
                                           headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project),
                                                     "Content-Type": "application/json"],
                                           body: Array(#"{"addStream": "\#(streams[1])", "hasAudio": true, "hasVideo": true}"#.utf8))
        #expect(added.status == 204, "\(String(decoding: added.body, as: UTF8.self))")
        Thread.sleep(forTimeInterval: 4)
        #expect(try rest.post("archive/\(id)/stop").status == 200)

        let archive = Self.settled(router, id)
        #expect(archive["status"] as? String == "available", "\(archive)")
        let download = try ArchiveTools.get(try #require(archive["url"] as? String, "\(archive)"))
        let file = directory + "/\(id).mp4"
        try Data(download.body).write(to: URL(fileURLWithPath: file))
        let alone = LayoutMath.cells(for: [LayoutStream()], layout: .standard, canvas: .standard)[0]
            .fitting(sourceWidth: 160, sourceHeight: 120)
        let frame = try #require(try ComposedMediaProbe.grayFrame(file, at: 3, width: 640, height: 480, scratch: directory))
        let stamp = ComposedMediaProbe.stamp(in: frame, canvasWidth: 640, x: alone.x, y: alone.y, width: alone.width,
                                             height: alone.height, sourceWidth: 160, sourceHeight: 120)
        #expect(stamp.map { $0 / 100_000 } == 2, "B alone fills the canvas: read \(String(describing: stamp))")
    }

    /// A router recording into a fresh temporary directory (`prefix` + a UUID), and that directory.
    private static func startRouter(_ prefix: String) throws -> (directory: String, router: Router) {
        let directory = NSTemporaryDirectory() + prefix + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var configuration = RouterConfiguration()
        configuration.projects = [project]
        configuration.logLevel = .error
        configuration.archiveDirectory = directory + "/archives"
        return (directory, try Router(configuration: configuration, media: try MediaRouter()))
    }

    /// The archive's JSON once it is `available` or `failed` (or as it stands after 60 s).
    private static func settled(_ router: Router, _ id: String) -> [String: Any] {
        var archive: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            archive = (try? ArchiveTools.archive(router, project, id)) ?? [:]
            if let status = archive["status"] as? String, status == "available" || status == "failed" { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return archive
    }
}
