import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// An individual archive that cannot be written fails on its own: the archive ends
/// `failed` with the system's reason, and a subscriber of the recorded stream keeps
/// decoding every frame.
@Suite(.serialized)
struct IndividualArchiveFailureTests {
    static let project = ProjectCredentials(apiKey: "4719", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    private let kit = SessionTestKit(project: Self.project)

    @Test func anUnwritableArchiveDirectoryFailsTheArchiveAndNotTheStream() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        let device = ToneLoopDevice(frequency: 660)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        // A regular file where the archive directory should be: nothing can be created under it
        // (a read-only mode would not stop root, which CI containers often are).
        let blocker = NSTemporaryDirectory() + "otkit-archive-blocker-" + UUID().uuidString
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        configuration.archiveDirectory = blocker + "/archives"
        let router = try Router(configuration: configuration, media: try MediaRouter())
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)

        let publisher = try ArchivePublisher(router: router, sessionId: sessionId, apiKey: Self.project.apiKey,
                                             token: try kit.token(sessionId, .publisher))
        defer { publisher.close() }
        let streamId = try publisher.publish(name: "a", frequency: 440)

        let recorder = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, recorder)
        try kit.connect(session, recorder, token: try kit.token(sessionId, .subscriber))
        defer { session.disconnect() }
        #expect(recorder.wait { $0.contains("streamCreated \(streamId)") })
        let stream = try #require(session.streams[streamId])
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
        let render = FrameNumberRender()
        subscriber.videoRender = render
        try session.subscribe(subscriber)
        #expect(recorder.wait(20) { _ in render.seen.count >= 15 })

        let started = try rest.post("archive", ["sessionId": sessionId, "outputMode": "individual"])
        #expect(started.status == 200, "\(started.body)")
        let archiveId = try #require(started.body["id"] as? String)
        let seenAtStart = render.seen.count
        #expect(recorder.wait(20) { _ in render.seen.count >= seenAtStart + 60 }, "two seconds of frames while the archive runs")
        _ = try rest.post("archive/\(archiveId)/stop")
        var archive: [String: Any] = [:]
        #expect(recorder.wait(20) { _ in
            archive = (try? ArchiveTools.archive(router, Self.project, archiveId)) ?? [:]
            return archive["status"] as? String == "failed"
        }, "\(archive)")
        let reason = archive["reason"] as? String ?? ""
        #expect(reason.contains("archive directory") && archive["url"] is NSNull, "\(archive)")

        // The subscriber decoded the stream throughout: consecutive frame numbers, no hole
        // longer than two frames (a frame the decoder skipped under CI load, not a stall).
        let numbers = Array(render.seen.dropFirst(max(0, seenAtStart - 1)))
        let holes = zip(numbers, numbers.dropFirst()).map { Int($1) - Int($0) }
        #expect(numbers.count >= 60 && holes.allSatisfy { (1...3).contains($0) }, "frame steps \(holes)")
    }
}
