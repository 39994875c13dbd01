import Foundation
import Testing
@testable import OTRouter

/// `ArchiveCrashRecovery` without a router: what it does with nothing usable (an empty
/// directory, a file that is not media), with a composed archive, with a finished one; and
/// the stream ids it reads from file names. The recovery of real WebM files is
/// `ArchiveKilledRouterTests` (a SIGKILLed `otkit router`).
struct ArchiveCrashRecoveryTests {
    private func record(_ id: String, status: String = "started", outputMode: String = "individual") -> ArchiveRecordFile {
        var record = ArchiveRecord(id: id, apiKey: "1", sessionId: "s", name: "n", createdAt: 5, hasAudio: true, hasVideo: true,
                                   outputMode: outputMode, streamMode: "auto", resolution: "640x480")
        record.status = status
        return ArchiveRecordFile(record)
    }

    @Test func nothingUsableStaysFailedAndSaysWhy() throws {
        let root = NSTemporaryDirectory() + "otkit-recovery-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        try Data("not a webm".utf8).write(to: URL(fileURLWithPath: root + "/a/stream.webm"))
        let empty = ArchiveCrashRecovery.recover(record("a"), root: root)
        #expect(empty.status == "failed" && empty.reason?.contains("nothing usable") == true, "\(empty)")
        #expect(!FileManager.default.fileExists(atPath: root + "/a.zip"))
        let missing = ArchiveCrashRecovery.recover(record("b", status: "paused"), root: root)
        #expect(missing.status == "failed" && missing.reason?.contains("killed or crashed") == true)
        let composed = ArchiveCrashRecovery.recover(record("c", outputMode: "composed"), root: root)
        #expect(composed.status == "failed" && composed.reason?.contains("nothing usable") == false)
        let finished = record("d", status: "available")
        #expect(ArchiveCrashRecovery.recover(finished, root: root) == finished)
    }

    @Test func streamIdsComeFromFileNames() {
        #expect(ArchiveCrashRecovery.streamId(ofFile: "5f6ec431-3b52-4823-ab59-ecbdadbfd994.webm") == "5f6ec431-3b52-4823-ab59-ecbdadbfd994")
        #expect(ArchiveCrashRecovery.streamId(ofFile: "5f6ec431-3b52-4823-ab59-ecbdadbfd994-2.webm") == "5f6ec431-3b52-4823-ab59-ecbdadbfd994")
        #expect(ArchiveCrashRecovery.streamId(ofFile: "abc-1234.webm") == "abc-1234")
        #expect(ArchiveCrashRecovery.streamId(ofFile: "plain.webm") == "plain")
    }
}
