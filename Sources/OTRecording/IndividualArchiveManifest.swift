import Foundation

/// The JSON manifest OpenTok puts in an individual archive's ZIP: the archive's identity
/// and one entry per WebM file, with offsets in milliseconds from the archive's start so a
/// player can line the streams up (a stream that left and came back has two entries).
///
/// Field names are OpenTok's; `name` and `connectionData` are written as `null` when
/// absent. Cost: a plain value; `jsonData()` is one JSONEncoder pass.
public struct IndividualArchiveManifest: Codable, Sendable, Equatable {
    /// One recorded file.
    public struct File: Codable, Sendable, Equatable {
        /// The stream the file recorded.
        public var streamId: String
        /// The publishing connection's data (from its token), or nil.
        public var connectionData: String?
        /// The file's name inside the ZIP (e.g. `<streamId>.webm`).
        public var filename: String
        /// Its size in bytes.
        public var size: Int
        /// Milliseconds from the archive's start to the file's first frame.
        public var startTimeOffset: Int
        /// Milliseconds from the archive's start to the file's end.
        public var stopTimeOffset: Int

        /// An entry with every field given.
        public init(streamId: String, connectionData: String?, filename: String, size: Int,
                    startTimeOffset: Int, stopTimeOffset: Int) {
            self.streamId = streamId
            self.connectionData = connectionData
            self.filename = filename
            self.size = size
            self.startTimeOffset = startTimeOffset
            self.stopTimeOffset = stopTimeOffset
        }

        /// Encodes every field, `connectionData` as null when nil (OpenTok's shape).
        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(streamId, forKey: .streamId)
            try container.encode(connectionData, forKey: .connectionData)
            try container.encode(filename, forKey: .filename)
            try container.encode(size, forKey: .size)
            try container.encode(startTimeOffset, forKey: .startTimeOffset)
            try container.encode(stopTimeOffset, forKey: .stopTimeOffset)
        }
    }

    /// The archive id.
    public var id: String
    /// The archive's name, or nil.
    public var name: String?
    /// The session recorded.
    public var sessionId: String
    /// When the archive started, in milliseconds since 1970.
    public var createdAt: Int64
    /// The files, in the order they were started.
    public var files: [File]

    /// A manifest with every field given.
    public init(id: String, name: String?, sessionId: String, createdAt: Int64, files: [File]) {
        self.id = id
        self.name = name
        self.sessionId = sessionId
        self.createdAt = createdAt
        self.files = files
    }

    /// Encodes every field, `name` as null when nil.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(files, forKey: .files)
    }

    /// The manifest as JSON (keys sorted, so the bytes are stable).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The entry for a finished recording: offsets from `archiveStartNanoseconds` (the
    /// archive's start on the same monotonic clock the recorder used), size from the summary.
    public static func file(streamId: String, connectionData: String?, filename: String,
                            summary: RecordingSummary, archiveStartNanoseconds: UInt64) -> File {
        func offset(_ time: UInt64?) -> Int {
            guard let time, time > archiveStartNanoseconds else { return 0 }
            return Int((time - archiveStartNanoseconds) / 1_000_000)
        }
        return File(streamId: streamId, connectionData: connectionData, filename: filename, size: summary.size,
                    startTimeOffset: offset(summary.startNanoseconds), stopTimeOffset: offset(summary.stopNanoseconds))
    }
}
