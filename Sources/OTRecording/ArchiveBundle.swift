import CZip
import Foundation

/// Writes an individual archive's ZIP: the WebM files stored as they are (no deflate:
/// WebM does not compress) plus the JSON manifest, as OpenTok delivers individual archives.
///
/// Cost: libzip copies each file once into the archive when it is closed; memory stays
/// at libzip's buffers, not the files' size.
public enum ArchiveBundle {
    /// The manifest's name inside the ZIP.
    public static let manifestName = "manifest.json"

    /// Writes `zipPath` (replacing it) with `files` (each the path on disk and the name
    /// inside the ZIP) and `manifest`. Throws `RecordingError` naming what failed.
    public static func write(zipPath: String, files: [(path: String, name: String)],
                             manifest: IndividualArchiveManifest) throws(RecordingError) {
        let json: Data
        do { json = try manifest.jsonData() } catch { throw RecordingError("encoding the manifest failed: \(error)") }
        var status: Int32 = 0
        guard let archive = zip_open(zipPath, ZIP_CREATE | ZIP_TRUNCATE, &status) else {
            throw RecordingError("creating \(zipPath) failed: \(zipErrorText(code: status))")
        }
        func abandon(_ what: String) -> RecordingError {
            let text = String(cString: zip_strerror(archive))
            zip_discard(archive)
            return RecordingError("\(what) failed: \(text)")
        }
        for file in files {
            guard let source = zip_source_file(archive, file.path, 0, -1) else { throw abandon("adding \(file.path)") }
            let index = zip_file_add(archive, file.name, source, zip_flags_t(ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8))
            guard index >= 0 else {
                zip_source_free(source)
                throw abandon("adding \(file.name)")
            }
            guard zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_STORE, 0) == 0 else {
                throw abandon("storing \(file.name)")
            }
        }
        // libzip reads the buffer at zip_close; freep = 1 hands it a malloc'd copy to free.
        guard let copy = malloc(max(1, json.count)) else { throw abandon("allocating the manifest") }
        json.withUnsafeBytes { if let base = $0.baseAddress { copy.copyMemory(from: base, byteCount: json.count) } }
        guard let source = zip_source_buffer(archive, copy, zip_uint64_t(json.count), 1) else {
            free(copy)
            throw abandon("adding the manifest")
        }
        let index = zip_file_add(archive, manifestName, source, zip_flags_t(ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8))
        guard index >= 0 else {
            zip_source_free(source)
            throw abandon("adding the manifest")
        }
        _ = zip_set_file_compression(archive, zip_uint64_t(index), ZIP_CM_STORE, 0)
        guard zip_close(archive) == 0 else { throw abandon("writing \(zipPath)") }
    }

    /// libzip's text for an error code from `zip_open`.
    private static func zipErrorText(code: Int32) -> String {
        var error = zip_error_t()
        zip_error_init_with_code(&error, code)
        defer { zip_error_fini(&error) }
        return String(cString: zip_error_strerror(&error))
    }
}
