import Foundation
import OTMedia
import OTRecording
import OTTestSupport
import Testing

/// The individual archive's ZIP as other tools read it.
@Suite("ArchiveBundle")
struct ArchiveBundleTests {
    /// Two recorded streams bundled: `unzip -l` and Python's zipfile list the WebM files
    /// and the manifest, the entries are stored (not deflated), and the manifest carries
    /// OpenTok's fields with the recordings' true sizes and offsets.
    @Test func zipHoldsFilesAndManifest() throws {
        let dir = try scratchDirectory("bundle")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let archiveStart = MonotonicClock.nanoseconds()
        var entries: [IndividualArchiveManifest.File] = []
        var files: [(path: String, name: String)] = []
        for (index, stream) in ["stream-a", "stream-b"].enumerated() {
            let path = dir + "/\(stream).webm"
            let recorder = StreamRecorder(configuration: StreamRecorderConfiguration(path: path))
            var feed = RecordingFeed(seed: UInt64(10 + index))
            feed.videoDelayNanoseconds = UInt64(index) * 500_000_000  // the second stream starts half a second later
            _ = try feed.run(try SyntheticAVPublisher(), into: recorder, seconds: 1)
            let summary = recorder.finish()
            #expect(summary.state == .finished)
            files.append((path, "\(stream).webm"))
            entries.append(IndividualArchiveManifest.file(streamId: stream, connectionData: index == 0 ? "name=alice" : nil,
                                                          filename: "\(stream).webm", summary: summary,
                                                          archiveStartNanoseconds: archiveStart))
        }
        let manifest = IndividualArchiveManifest(id: "b40ef09b-3811-4726-b508-e41a0f96c68f", name: nil, sessionId: "1_MX4xMjM0NX4",
                                                 createdAt: 1_700_000_000_000, files: entries)
        let zipPath = dir + "/archive.zip"
        try ArchiveBundle.write(zipPath: zipPath, files: files, manifest: manifest)

        let listing = try Subprocess.run("/usr/bin/unzip", ["-l", zipPath])
        #expect(listing.status == 0, "\(listing)")
        for name in ["stream-a.webm", "stream-b.webm", "manifest.json"] { #expect(listing.stdout.contains(name)) }

        let script = """
        import json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        print(json.dumps({"names": sorted(z.namelist()),
                          "stored": all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()),
                          "sizes": {i.filename: i.file_size for i in z.infolist()},
                          "manifest": json.loads(z.read("manifest.json"))}))
        """
        let python = try Subprocess.run("/usr/bin/python3", ["-c", script, zipPath])
        #expect(python.status == 0, "\(python)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [String: Any])
        #expect(parsed["names"] as? [String] == ["manifest.json", "stream-a.webm", "stream-b.webm"])
        #expect(parsed["stored"] as? Bool == true)
        let sizes = try #require(parsed["sizes"] as? [String: Int])
        let read = try #require(parsed["manifest"] as? [String: Any])
        #expect(read["id"] as? String == "b40ef09b-3811-4726-b508-e41a0f96c68f")
        #expect(read["sessionId"] as? String == "1_MX4xMjM0NX4")
        #expect(read["createdAt"] as? Int == 1_700_000_000_000)
        #expect(read.keys.contains("name") && read["name"] is NSNull)
        let listed = try #require(read["files"] as? [[String: Any]])
        #expect(listed.count == 2)
        for (file, entry) in zip(listed, entries) {
            #expect(Set(file.keys) == ["streamId", "connectionData", "filename", "size", "startTimeOffset", "stopTimeOffset"])
            #expect(file["streamId"] as? String == entry.streamId)
            #expect(file["size"] as? Int == sizes[entry.filename])
            #expect(file["size"] as? Int ?? 0 > 0)
            let start = file["startTimeOffset"] as? Int ?? -1, stop = file["stopTimeOffset"] as? Int ?? -1
            #expect(start >= 0 && stop - start >= 800, "\(file)")
        }
        #expect(listed[0]["connectionData"] as? String == "name=alice")
        #expect(listed[1]["connectionData"] is NSNull)
        // The later stream's file starts later on the archive's timeline.
        let offsetA = listed[0]["startTimeOffset"] as? Int ?? 0, offsetB = listed[1]["startTimeOffset"] as? Int ?? 0
        #expect(offsetB - offsetA >= 300, "offsets \(offsetA) and \(offsetB)")
    }
}
