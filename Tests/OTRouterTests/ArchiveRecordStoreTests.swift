import Foundation
import Testing
@testable import OTRouter

/// `ArchiveRecordStore`: records round-trip through archive.json, later versions overwrite
/// the padded file in place (same size, so no new blocks on a full disk), stale versions
/// are not written over newer ones, unfinished records come back failed, a deleted
/// archive's directory goes and cannot be written again, and a broken file is reported,
/// not fatal.
struct ArchiveRecordStoreTests {
    private func record(_ id: String, status: String = "started") -> ArchiveRecord {
        var record = ArchiveRecord(id: id, apiKey: "1", sessionId: "s", name: "n", createdAt: 5, hasAudio: true, hasVideo: true,
                                   outputMode: "individual", streamMode: "auto", resolution: "640x480")
        record.status = status
        return record
    }

    @Test func recordsRoundTripAndUpdatesOverwriteInPlace() throws {
        let root = NSTemporaryDirectory() + "otkit-records-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = ArchiveRecordStore(root: root)
        #expect(store.save(ArchiveRecordFile(record("a")), version: 1) == nil)
        let path = store.path(of: "a")
        let inode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue == ArchiveRecordStore.blockSize)

        var failed = record("a", status: "failed")
        failed.reason = "No space left on device"
        #expect(store.save(ArchiveRecordFile(failed), version: 3) == nil)
        #expect(store.save(ArchiveRecordFile(record("a", status: "stopped")), version: 2) == nil, "an older version is skipped")
        let after = try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)
        #expect(after == inode, "the update went into the same file")
        let loaded = store.loadAll()
        #expect(loaded.records.map(\.status) == ["failed"] && loaded.records.first?.reason == "No space left on device")
        #expect(loaded.problems.isEmpty)

        store.remove("a")
        #expect(!FileManager.default.fileExists(atPath: root + "/a"))
        _ = store.save(ArchiveRecordFile(failed), version: 9)
        #expect(!FileManager.default.fileExists(atPath: root + "/a"), "a deleted archive is not written again")
    }

    @Test func unfinishedRecordsComeBackFailedAndBrokenFilesAreReported() throws {
        let root = NSTemporaryDirectory() + "otkit-records-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = ArchiveRecordStore(root: root)
        for (id, status) in [("b", "started"), ("c", "stopped"), ("d", "available")] {
            #expect(store.save(ArchiveRecordFile(record(id, status: status)), version: 1) == nil)
        }
        try FileManager.default.createDirectory(atPath: root + "/e", withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: root + "/e/archive.json"))
        let loaded = store.loadAll()
        #expect(loaded.records.map(\.id).sorted() == ["b", "c", "d"])
        #expect(loaded.problems.count == 1 && loaded.problems[0].contains("/e/"), "\(loaded.problems)")
        let after = loaded.records.map { ArchiveRecordStore.orphaned($0, directory: root + "/" + $0.id) }
        #expect(after.map(\.status) == ["failed", "failed", "available"])
        #expect(after[0].reason?.contains("killed or crashed") == true && after[0].reason?.contains(root + "/b") == true)
        #expect(after[2].reason == nil)
    }
}
