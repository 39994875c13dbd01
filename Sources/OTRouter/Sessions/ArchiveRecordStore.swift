import Foundation
import Synchronization

/// Archive records that outlive the router process: one small JSON file per archive,
/// `<archive directory>/<archiveId>/archive.json`, written when the archive starts and on
/// every change of its record (status, size, duration, reason, file), and read back when
/// a router starts on the same directory.
///
/// A record still `started`, `paused` or `stopped` on disk belongs to an archive the
/// previous router never finished (it was killed or crashed): an individual one is
/// recovered (`ArchiveCrashRecovery`), otherwise it comes back `failed` with a reason
/// naming the directory that holds its files (written incrementally, they play up to the
/// router's end).
///
/// A new record goes to a temporary file renamed over it, so it is never half written; it
/// is padded with spaces to 4 KiB, so later versions overwrite the same blocks with one
/// write and still land when the disk has filled up (the case of an archive failing with
/// "No space left on device"). A failed write is logged; the in-memory record stays right.
/// Cost: one lock; per write 4 KiB written, no fsync.
final class ArchiveRecordStore: Sendable {
    /// The archive directory.
    let root: String
    private let written = Mutex<[String: UInt64]>([:])

    /// The record's file name inside the archive's directory.
    static let fileName = "archive.json"

    /// A store over `root` (nothing is read or created yet).
    init(root: String) { self.root = root }

    /// `<root>/<archiveId>/archive.json`.
    func path(of archiveId: String) -> String { root + "/" + archiveId + "/" + Self.fileName }

    /// Writes `record` unless a newer version (`version`, increasing per change) was already
    /// written. Creates the archive's directory. Returns the failure's text, nil on success.
    @discardableResult
    func save(_ record: ArchiveRecordFile, version: UInt64) -> String? {
        written.withLock { written -> String? in
            if let last = written[record.id], last >= version { return nil }
            written[record.id] = version
            let directory = root + "/" + record.id
            let target = directory + "/" + Self.fileName
            let temporary = target + ".tmp"
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                var bytes = [UInt8](try encoder.encode(record))
                let size = (bytes.count + Self.blockSize) / Self.blockSize * Self.blockSize
                bytes += [UInt8](repeating: UInt8(ascii: " "), count: size - bytes.count - 1) + [UInt8(ascii: "\n")]
                if Self.overwrite(target, with: bytes) { return nil }
                let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard fd >= 0 else { return "creating \(temporary) failed: \(String(cString: strerror(errno)))" }
                let wrote = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                let problem = wrote == bytes.count ? nil : String(cString: strerror(wrote < 0 ? errno : ENOSPC))
                close(fd)
                if let problem {
                    unlink(temporary)
                    return "writing \(temporary) failed: \(problem)"
                }
                guard rename(temporary, target) == 0 else {
                    let reason = String(cString: strerror(errno))
                    unlink(temporary)
                    return "renaming \(temporary) failed: \(reason)"
                }
                return nil
            } catch {
                return "writing \(target) failed: \(error.localizedDescription)"
            }
        }
    }

    /// Records are padded with spaces to a multiple of this, so a later version of the same
    /// size class overwrites the file's blocks in place: it lands even on a full disk.
    static let blockSize = 4096

    /// Writes `bytes` over the existing `path` when it has exactly that size (one write at
    /// offset 0, no new blocks). False when it is absent, of another size or the write fails.
    private static func overwrite(_ path: String, with bytes: [UInt8]) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, Int(info.st_size) == bytes.count else { return false }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == bytes.count
    }

    /// Removes the archive's directory (its record and any files left in it) and refuses
    /// every later `save` of it: the archive was deleted. Cost: the removal.
    func remove(_ archiveId: String) {
        written.withLock { written in
            written[archiveId] = .max
            try? FileManager.default.removeItem(atPath: root + "/" + archiveId)
        }
    }

    /// Every record under `root` (the directories holding an `archive.json` that decodes),
    /// oldest first; unreadable ones are skipped and named in `problems`. Cost: one
    /// directory listing and one small read per archive.
    func loadAll() -> (records: [ArchiveRecordFile], problems: [String]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return ([], []) }
        var records: [ArchiveRecordFile] = []
        var problems: [String] = []
        for name in names.sorted() {
            let file = root + "/" + name + "/" + Self.fileName
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            do {
                let record = try JSONDecoder().decode(ArchiveRecordFile.self, from: data)
                guard record.id == name else {
                    problems.append("\(file) names archive \(record.id), not \(name)")
                    continue
                }
                records.append(record)
            } catch {
                problems.append("\(file) does not decode: \(error)")
            }
        }
        return (records.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }, problems)
    }

    /// What an archive that was still running when its router ended becomes after a restart.
    static func orphaned(_ record: ArchiveRecordFile, directory: String) -> ArchiveRecordFile {
        var record = record
        guard ["started", "paused", "stopped"].contains(record.status) else { return record }
        let was = record.status
        record.status = "failed"
        record.reason = "the router ended while this archive was \(was) (killed or crashed), so it was never finished; "
            + "the files recorded until then are in \(directory) (written incrementally: they play up to the router's end)"
        return record
    }
}

/// `ArchiveRecord` as stored in `archive.json` (the same fields, Codable). Cost: a plain value.
struct ArchiveRecordFile: Codable, Equatable, Sendable {
    var id: String
    var apiKey: String
    var sessionId: String
    var name: String?
    var createdAt: Int64
    var hasAudio: Bool
    var hasVideo: Bool
    var outputMode: String
    var streamMode: String
    var resolution: String
    var status: String
    var stoppedAt: Int64?
    var size: Int
    var durationSeconds: Int?
    var reason: String?
    var filePath: String?

    /// The stored form of `record`.
    init(_ record: ArchiveRecord) {
        id = record.id; apiKey = record.apiKey; sessionId = record.sessionId; name = record.name
        createdAt = record.createdAt; hasAudio = record.hasAudio; hasVideo = record.hasVideo
        outputMode = record.outputMode; streamMode = record.streamMode; resolution = record.resolution
        status = record.status; stoppedAt = record.stoppedAt; size = record.size
        durationSeconds = record.durationSeconds; reason = record.reason; filePath = record.filePath
    }

    /// The record it stores.
    var record: ArchiveRecord {
        var record = ArchiveRecord(id: id, apiKey: apiKey, sessionId: sessionId, name: name, createdAt: createdAt,
                                   hasAudio: hasAudio, hasVideo: hasVideo, outputMode: outputMode, streamMode: streamMode,
                                   resolution: resolution)
        record.status = status
        record.stoppedAt = stoppedAt
        record.size = size
        record.durationSeconds = durationSeconds
        record.reason = reason
        record.filePath = filePath
        return record
    }
}
