/// The `streams` of an archive's JSON.
extension RESTBodies {
    /// A manual-mode archive's chosen streams as OpenTok lists them:
    /// `[{"streamId", "hasAudio", "hasVideo"}]`; empty in auto mode.
    static func streams(_ archive: ArchiveRecord) -> JSONValue {
        .array(archive.selectedStreams.map {
            .object([("streamId", .string($0.streamId)), ("hasAudio", .bool($0.hasAudio)), ("hasVideo", .bool($0.hasVideo))])
        })
    }
}
