import Foundation
import OTRecording

/// What becomes of an individual archive whose router ended (killed, crashed) while it was
/// `started`, `paused` or `stopped`: its WebM files, written incrementally and playable up to
/// the router's end, are bundled as a normal stop would have — a ZIP beside the archive's
/// directory with OpenTok's manifest — and the archive is `available`, its `reason` saying
/// it was recovered after a crash. With no usable file it stays `failed`
/// (`ArchiveRecordStore.orphaned`).
///
/// The manifest's figures come from the files, the recorders' own summaries being lost:
/// each file's media span (`RecordedMediaSpan`, libavformat reading every packet), its end
/// taken as its last write (the file's modification time, at most one cluster, 0.5 s,
/// after its last frame) relative to the archive's `createdAt`, its start that end less
/// the span; the stream id is the file name (`<streamId>.webm`, `<streamId>-2.webm` for a
/// stream's second file); `connectionData` is not known and left out.
/// Cost: one directory listing, a demux of each file, the ZIP's copy. Runs at router start.
enum ArchiveCrashRecovery {
    /// The record after recovery (`record` unchanged unless it is an unfinished individual
    /// archive; then `available` with the ZIP, or `failed` when nothing could be bundled).
    static func recover(_ record: ArchiveRecordFile, root: String) -> ArchiveRecordFile {
        guard ["started", "paused", "stopped"].contains(record.status) else { return record }
        let directory = root + "/" + record.id
        guard record.outputMode == "individual" else { return ArchiveRecordStore.orphaned(record, directory: directory) }
        let was = record.status
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".webm") }.sorted()
        var files: [(file: IndividualArchiveManifest.File, path: String)] = []
        for name in names {
            let path = directory + "/" + name
            guard let span = RecordedMediaSpan.seconds(path), span > 0,
                  let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = (attributes[.size] as? NSNumber)?.intValue, size > 0,
                  let modified = attributes[.modificationDate] as? Date else { continue }
            let stop = max(0, Int(modified.timeIntervalSince1970 * 1000) - Int(record.createdAt))
            let start = max(0, stop - Int(span * 1000))
            files.append((IndividualArchiveManifest.File(streamId: streamId(ofFile: name), connectionData: nil, filename: name,
                                                          size: size, startTimeOffset: start, stopTimeOffset: stop), path))
        }
        guard !files.isEmpty else {
            var failed = ArchiveRecordStore.orphaned(record, directory: directory)
            failed.reason = "recovery after a crash found nothing usable: " + (failed.reason ?? "")
            return failed
        }
        files.sort { ($0.file.startTimeOffset, $0.file.filename) < ($1.file.startTimeOffset, $1.file.filename) }
        let zipPath = root + "/" + record.id + ".zip"
        let manifest = IndividualArchiveManifest(id: record.id, name: record.name, sessionId: record.sessionId,
                                                 createdAt: record.createdAt, files: files.map(\.file))
        do {
            try ArchiveBundle.write(zipPath: zipPath, files: files.map { ($0.path, $0.file.filename) }, manifest: manifest)
        } catch {
            var failed = ArchiveRecordStore.orphaned(record, directory: directory)
            failed.reason = "recovery after a crash could not write the ZIP (\(error)): " + (failed.reason ?? "")
            return failed
        }
        var recovered = record
        recovered.status = "available"
        recovered.filePath = zipPath
        recovered.size = ((try? FileManager.default.attributesOfItem(atPath: zipPath))?[.size] as? NSNumber)?.intValue ?? 0
        let stop = files.map(\.file.stopTimeOffset).max() ?? 0
        recovered.durationSeconds = Int((Double(stop) / 1000).rounded())
        recovered.stoppedAt = record.stoppedAt ?? (record.createdAt + Int64(stop))
        recovered.reason = "recovered after a crash: the router ended while this archive was \(was) (killed or crashed); "
            + "its \(files.count) WebM file(s), playable up to the router's end, were bundled when the next router started"
        return recovered
    }

    /// The stream id a recording's file name carries: `<streamId>.webm`, or `<streamId>-N.webm`
    /// for the stream's N-th file (N of one to three digits).
    static func streamId(ofFile name: String) -> String {
        let stem = String(name.dropLast(5))
        guard let dash = stem.lastIndex(of: "-") else { return stem }
        let suffix = stem[stem.index(after: dash)...]
        guard (1...3).contains(suffix.count), suffix.allSatisfy(\.isNumber) else { return stem }
        return String(stem[..<dash])
    }
}
