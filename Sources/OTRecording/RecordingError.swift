/// Why a recording could not be written: the file could not be created, a write failed
/// (full disk, file-size limit), or libavformat refused the stream. `reason` is what an
/// archive's `reason` field shows. Cost: a string.
public struct RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A sentence for people: what failed and the system's own words for why.
    public let reason: String

    /// An error with `reason`.
    public init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}
