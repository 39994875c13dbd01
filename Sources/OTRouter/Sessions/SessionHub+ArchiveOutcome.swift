/// The last step of every archive, individual or composed: once its file is finished (in
/// the background), the record turns `available` or `failed`.
extension SessionHub {
    /// Settles `archive` from its finished file: `failed` with `failure` when there is one,
    /// else `available` with the file's `size` and `filePath`; `duration` either way; logged
    /// with `details` added to the success line. Under the lock; no I/O.
    func settleArchive(_ archive: inout ArchiveRecord, durationSeconds: Int?, failure: String?, size: Int, filePath: String?,
                       details: [String: String] = [:]) {
        archive.durationSeconds = durationSeconds
        if let failure {
            archive.status = "failed"
            archive.reason = failure
            log.log(.warning, "archive.failed", session: archive.sessionId, ["archive": archive.id, "reason": failure])
        } else {
            archive.status = "available"
            archive.size = size
            archive.filePath = filePath
            log.log(.info, "archive.available", session: archive.sessionId,
                    ["archive": archive.id, "size": String(size)].merging(details) { first, _ in first })
        }
    }
}
