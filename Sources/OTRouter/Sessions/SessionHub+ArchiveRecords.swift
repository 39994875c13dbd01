import Foundation

/// Archive records on disk (`ArchiveRecordStore`): every change to `archives` is written
/// to the archive's `archive.json` once the lock is released, and a router started on a
/// configured archive directory takes the records it finds there, the unfinished ones
/// (their router was killed) recovered or `failed`, with the reason.
extension SessionHub {
    /// `archives` changed (under the lock): queue a write of each record that differs from
    /// `old`, and the removal of the directory of each record that is gone (deleted: its
    /// record must not come back after a restart, nor the files of a failed archive stay).
    /// In a cluster a new archive's id → node entry is queued for Redis, and a gone one's removal.
    /// Cost: a comparison per archive; the file work happens after the lock is released.
    func archivesChanged(from old: [String: ArchiveRecord]) {
        if old.count > archives.count {
            let store = archiveRecords
            let cluster = cluster
            for id in old.keys where archives[id] == nil {
                afterUnlock {
                    store.remove(id)
                    cluster?.archiveRemoved(id)  // its id → node entry leaves Redis
                }
            }
        }
        if archives.count > old.count, let cluster {  // a new archive: other nodes find it through Redis
            for id in archives.keys where old[id] == nil { afterUnlock { cluster.archiveStarted(id) } }
        }
        for (id, record) in archives {
            let stored = ArchiveRecordFile(record)
            if let previous = old[id], ArchiveRecordFile(previous) == stored { continue }
            archiveRecordVersion += 1
            let version = archiveRecordVersion
            let store = archiveRecords
            let log = log
            afterUnlock {
                if let problem = store.save(stored, version: version) {
                    log.log(.warning, "archive.recordNotWritten", session: stored.sessionId, ["archive": id, "reason": problem])
                }
            }
        }
    }

    /// The records a new router takes over: those under an explicitly configured archive
    /// directory (the default one, under the temporary directory, is shared by every router
    /// on the machine and is not read). Unfinished individual archives are recovered
    /// (`ArchiveCrashRecovery`: their WebM files bundled, `available`), other unfinished
    /// ones come back `failed`; either way their record is rewritten so. Runs in `init`, before the router serves anything.
    static func adoptArchiveRecords(configuration: RouterConfiguration, store: ArchiveRecordStore, log: RouterLog) -> [ArchiveRecord] {
        guard configuration.archiveDirectory != nil else { return [] }
        let (records, problems) = store.loadAll()
        for problem in problems { log.log(.warning, "archive.recordUnreadable", ["reason": problem]) }
        return records.map { found in
            let record = ArchiveCrashRecovery.recover(found, root: store.root)
            if record != found {
                log.log(.warning, record.status == "available" ? "archive.recovered" : "archive.failed", session: record.sessionId,
                        ["archive": record.id, "reason": record.reason ?? ""])
                if let problem = store.save(record, version: 0) {
                    log.log(.warning, "archive.recordNotWritten", session: record.sessionId, ["archive": record.id, "reason": problem])
                }
            }
            return record.record
        }
    }
}
