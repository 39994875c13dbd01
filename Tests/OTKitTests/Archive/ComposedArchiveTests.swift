import Foundation
import OTMedia
import OTNet
@testable import OTRouter
import OTRecording
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

extension RouterREST {
    /// PUTs `json` to `/v2/project/{apiKey}/<path>`; the status and the body as a JSON object.
    func put(_ path: String, _ json: [String: Any]) throws -> (status: Int, body: [String: Any]) {
        let body = try JSONSerialization.data(withJSONObject: json)
        let response = try HTTPClient.request("PUT", router.baseURL + "/v2/project/\(project.apiKey)/" + path,
                                              headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: project),
                                                        "Content-Type": "application/json"],
                                              body: Array(body))
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, object ?? [:])
    }
}

/// Composed archives recorded by the router: four real publishers (OTKit's pipeline, a
/// 640x480 test pattern whose frame numbers start at 100,000, 200,000, 300,000 and 400,000
/// (none at 0: a flat picture reads as stamp 0), and
/// tones at four frequencies) through the SFU into a 1280x720 `bestFit` archive, the
/// layout changed to `pip` half-way with `PUT …/layout`, the MP4 fetched from the signed
/// `url` and checked by ffprobe/ffmpeg (decoders the project did not write).
///
/// The acceptance timeline: 20 s, `bestFit` for the first 10 s, then `pip`. The
/// layouts are sampled at media times 3 s inside each half (7 s and 17 s of the file), so
/// a layout change that lands late under load still reads right.
@Suite(.serialized)
struct ComposedArchiveTests {
    static let project = ProjectCredentials(apiKey: "4719", apiSecret: "0123456789abcdef0123456789abcdef01234568")
    static let tones = [440.0, 700.0, 1_100.0, 1_700.0]
    static let controls = [560.0, 900.0, 1_400.0, 2_300.0]
    private let kit = SessionTestKit(project: Self.project)

    private func startRouter(archiveDirectory: String) throws -> Router {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        configuration.archiveDirectory = archiveDirectory
        return try Router(configuration: configuration, media: try MediaRouter())
    }

    private func settled(_ router: Router, _ id: String) -> [String: Any] {
        var last: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            last = (try? ArchiveTools.archive(router, Self.project, id)) ?? [:]
            if let status = last["status"] as? String, status == "available" || status == "failed" { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return last
    }

    @Test func fourPublishersBestFitThenPipInto1280x720() throws {
        let directory = NSTemporaryDirectory() + "otkit-composed-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["KEEP"] == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let router = try startRouter(archiveDirectory: directory + "/archives")
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        var publishers: [ArchivePublisher] = []
        defer { for publisher in publishers { publisher.close() } }
        var streams: [String] = []
        for index in 0..<4 {
            let publisher = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                                 token: try kit.token(sessionId, .publisher, data: "p\(index)"))
            publishers.append(publisher)
            streams.append(try publisher.publish(name: "p\(index)", frequency: Self.tones[index], width: 640, height: 480,
                                                 bitrateKbps: 800, firstFrameNumber: UInt32(index + 1) * 100_000, amplitude: 0.2))
        }
        Thread.sleep(forTimeInterval: 0.5)  // every stream flowing before the archive starts

        let before = MonotonicClock.nanoseconds()  // the composer's clock starts inside the request
        let started = try rest.post("archive", ["sessionId": sessionId, "resolution": "1280x720", "name": "composed",
                                                "layout": ["type": "bestFit"]])
        let start = MonotonicClock.nanoseconds()
        #expect(started.status == 200 && started.body["outputMode"] as? String == "composed", "\(started.body)")
        let archiveId = try #require(started.body["id"] as? String)
        #expect(try rest.post("archive", ["sessionId": sessionId, "resolution": "1000x1000"]).status == 400)
        Thread.sleep(forTimeInterval: 10)
        let changed = try rest.put("archive/\(archiveId)/layout", ["type": "pip"])
        #expect(changed.status == 200, "\(changed.body)")
        #expect(try rest.put("archive/\(archiveId)/layout", ["type": "grid"]).status == 400)
        #expect(try rest.put("archive/nope/layout", ["type": "pip"]).status == 404)
        Thread.sleep(forTimeInterval: max(0, 20 - Double(MonotonicClock.nanoseconds() - start) / 1e9))
        let stopped = try rest.post("archive/\(archiveId)/stop")
        let recorded = Double(MonotonicClock.nanoseconds() - start) / 1e9
        let recordedAtMost = Double(MonotonicClock.nanoseconds() - before) / 1e9
        #expect(stopped.status == 200 && stopped.body["status"] as? String == "stopped", "\(stopped.body)")

        let archive = settled(router, archiveId)
        #expect(archive["status"] as? String == "available", "\(archive)")
        #expect(archive["reason"] as? String == "")
        let url = try #require(archive["url"] as? String, "\(archive)")
        #expect(url.contains(".mp4?"))
        let download = try ArchiveTools.get(url)
        #expect(download.status == 200 && download.body.count == archive["size"] as? Int)
        let file = directory + "/download.mp4"
        try Data(download.body).write(to: URL(fileURLWithPath: file))

        let probe = try ComposedMediaProbe.summary(file)
        print("composed archive: \(probe), recorded \(recorded)…\(recordedAtMost) s, \(download.body.count) bytes")
        #expect(probe.videoCodec == "h264" && probe.width == 1280 && probe.height == 720, "\(probe)")
        #expect(probe.audioCodec == "aac" && probe.sampleRate == 48_000, "\(probe)")
        let duration = try #require(probe.duration)
        // The file covers the archive: from the composer's start (inside the start request,
        // which a loaded machine makes slow) to the stop, within the issue's ± 0.5 s.
        #expect(duration >= recorded - 0.5 && duration <= recordedAtMost + 0.5,
                "file \(duration) s, recorded \(recorded)…\(recordedAtMost) s")
        #expect(abs((archive["duration"] as? Int ?? 0) - Int(duration.rounded())) <= 1, "\(archive)")

        // Each stream's stamp inside the rectangle the layout gives it (read from the crop, scaled back to 640x480).
        let canvas = CanvasResolution(width: 1280, height: 720)
        let plain = Array(repeating: LayoutStream(), count: 4)
        for (time, layout) in [(7.0, CompositionLayout.standard), (17.0, CompositionLayout(.pip))] {
            let cells = LayoutMath.cells(for: plain, layout: layout, canvas: canvas)
            let frame = try #require(try ComposedMediaProbe.grayFrame(file, at: time, width: 1280, height: 720, scratch: directory))
            for index in 0..<4 {
                let rect = cells[index].fitting(sourceWidth: 640, sourceHeight: 480)
                let stamp = ComposedMediaProbe.stamp(in: frame, canvasWidth: 1280, x: rect.x, y: rect.y, width: rect.width,
                                                     height: rect.height, sourceWidth: 640, sourceHeight: 480)
                #expect(stamp.map { $0 / 100_000 } == UInt32(index + 1), "\(layout.kind) at \(time) s: stream \(index) in \(rect) reads \(String(describing: stamp))")
            }
        }

        // The mix holds the four publishers' tones, well above frequencies nobody sent.
        let samples = try ComposedMediaProbe.audio(file, scratch: directory)
        let window = samples[min(samples.count, 48_000)..<min(samples.count, 19 * 48_000)]
        let noise = Self.controls.map { ComposedMediaProbe.toneAmplitude(window, frequency: $0) }.max() ?? 0
        for tone in Self.tones {
            let amplitude = ComposedMediaProbe.toneAmplitude(window, frequency: tone)
            print("tone \(tone) Hz: amplitude \(amplitude) (loudest control \(noise))")
            #expect(amplitude > 1_000 && amplitude > 10 * noise, "\(tone) Hz")
        }
    }

    /// Stream layout classes through `PUT …/session/{id}/stream`: stored (GET shows them),
    /// refused for unknown streams and bad bodies.
    @Test func streamLayoutClassesAreSetByREST() throws {
        let directory = NSTemporaryDirectory() + "otkit-composed-classes-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let router = try startRouter(archiveDirectory: directory)
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let publisher = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                             token: try kit.token(sessionId, .publisher))
        defer { publisher.close() }
        let streamId = try publisher.publish(name: "a", frequency: 440)
        let set = try rest.put("session/\(sessionId)/stream", ["items": [["id": streamId, "layoutClassList": ["focus"]]]])
        #expect(set.status == 200, "\(set.body)")  // only 200 satisfies the Python SDK
        let shown = try HTTPClient.request("GET", router.baseURL + "/v2/project/\(Self.project.apiKey)/session/\(sessionId)/stream/\(streamId)",
                                           headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: Self.project)])
        let object = (try? JSONSerialization.jsonObject(with: Data(shown.body))) as? [String: Any]
        #expect(object?["layoutClassList"] as? [String] == ["focus"])
        #expect(try rest.put("session/\(sessionId)/stream", ["items": [["id": "nope", "layoutClassList": []]]]).status == 404)
        #expect(try rest.put("session/\(sessionId)/stream", ["items": [["id": streamId]]]).status == 400)
        #expect(try rest.put("session/\(sessionId)/stream", ["nothing": true]).status == 400)
        #expect(try rest.put("session/1_unknown/stream", ["items": [["id": streamId, "layoutClassList": []]]]).status == 404)
    }
}
