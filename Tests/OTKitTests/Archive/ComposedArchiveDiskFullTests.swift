import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 18: a composed archive whose directory fills up (a 2 MiB tmpfs, nearly full
/// before the archive starts) goes `failed` with the system's reason while it records (the
/// composer's fragmented MP4 hits ENOSPC at a fragment flush); the composer writes nothing
/// more; a subscriber of the composed stream keeps receiving every frame across the
/// failure (stamped frame numbers, no gap over 200 ms worth of frames). The method of
/// `IndividualArchiveDiskFullTests`. Needs `mount` (root): without it the test fails with
/// that message, it does not skip.
@Suite(.serialized)
struct ComposedArchiveDiskFullTests {
    static let project = ProjectCredentials(apiKey: "4723", apiSecret: "0123456789abcdef0123456789abcdef01234568")
    private let kit = SessionTestKit(project: Self.project)

    @Test func aFullDiskFailsTheComposedArchiveAndTheSubscriberSeesNoGap() throws {
        try AudioDeviceTestLock.run { try body() }
    }

    private func body() throws {
        let mountPoint = NSTemporaryDirectory() + "otkit-composed-tmpfs-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: mountPoint) }
        let mounted = try Subprocess.run("/usr/bin/env", ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
        guard mounted.status == 0 else {
            Issue.record("this test needs a small tmpfs (mount -t tmpfs -o size=2m, as root): \(mounted.stderr)")
            return
        }
        defer { _ = try? Subprocess.run("/usr/bin/env", ["umount", "-l", mountPoint]) }
        // Leave about 160 KiB free: the composer's ~0.9 Mbit/s H.264 fills it within a few fragments (one a second).
        var info = statvfs()
        #expect(statvfs(mountPoint, &info) == 0)
        let free = Int(info.f_bavail) * Int(info.f_frsize)
        let filler = mountPoint + "/filler"
        #expect(FileManager.default.createFile(atPath: filler, contents: Data(count: max(0, free - 160 * 1024))))

        let device = ToneLoopDevice(frequency: 660)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        configuration.archiveDirectory = mountPoint + "/archives"
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

        let started = try rest.post("archive", ["sessionId": sessionId, "outputMode": "composed"])
        #expect(started.status == 200, "\(started.body)")
        let archiveId = try #require(started.body["id"] as? String)
        let seenAtStart = render.seen.count

        // The disk fills: the archive goes failed on its own (no stop request), with the reason.
        var archive: [String: Any] = [:]
        #expect(recorder.wait(60) { _ in
            archive = (try? ArchiveTools.archive(router, Self.project, archiveId)) ?? [:]
            return archive["status"] as? String == "failed"
        }, "\(archive)")
        let seenAtFailure = render.seen.count
        let reason = archive["reason"] as? String ?? ""
        #expect(reason.contains("No space left on device") && archive["url"] is NSNull, "\(archive)")
        print("composed-archive-disk-full: failed after \(seenAtFailure - seenAtStart) frames: \(reason)")
        #expect(recorder.wait(20) { $0.contains("archiveStopped \(archiveId)") }, "clients hear the archive stop")

        // The composer stopped writing: with the disk freed, its file does not grow over 60 more frames.
        try FileManager.default.removeItem(atPath: filler)
        let mp4 = mountPoint + "/archives/\(archiveId).mp4"
        let sizeAfterFailure = fileSize(mp4)
        #expect(recorder.wait(20) { _ in render.seen.count >= seenAtFailure + 60 }, "two seconds of frames after the failure")
        #expect(fileSize(mp4) == sizeAfterFailure, "the failed composer wrote nothing more")
        #expect((try? String(contentsOfFile: mountPoint + "/archives/\(archiveId)/archive.json", encoding: .utf8))?
            .contains("\"status\":\"failed\"") == true, "the record on the full disk says failed")

        // The subscriber decoded the stream throughout: no hole over 6 frames (200 ms at 30 fps).
        let numbers = Array(render.seen.dropFirst(max(0, seenAtStart - 1)))
        let steps = zip(numbers, numbers.dropFirst()).map { Int($1) - Int($0) }
        #expect(numbers.count >= 60 && steps.allSatisfy { (1...6).contains($0) }, "frame steps \(steps)")
    }

    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
    }
}
