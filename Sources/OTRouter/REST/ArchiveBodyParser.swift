import Foundation

/// One change asked by `PATCH /archive/{id}/streams`.
enum ArchiveStreamChange: Equatable {
    /// `{"addStream": id, "hasAudio": …, "hasVideo": …}` (adding again changes the tracks).
    case add(streamId: String, hasAudio: Bool, hasVideo: Bool)
    /// `{"removeStream": id}`.
    case remove(streamId: String)
}

/// Reads the archive options of `POST /archive` bodies beyond the basics
/// (`multiArchiveTag`, `maxDuration`, a `resolution` refused for individual output) and
/// `PATCH …/streams` bodies, from the parsed JSON object. Every value is type- and
/// range-checked; nothing traps. Self-contained (Foundation and `RESTError` only) so a
/// libFuzzer target compiles it in (Fuzz/ArchiveBodyFuzz.swift).
enum ArchiveBodyParser {
    /// The longest `multiArchiveTag` and stream id accepted, in bytes (OpenTok documents
    /// no limit; this bounds memory).
    static let idLimit = 256
    /// `maxDuration`'s range in seconds.
    static let maxDurationRange = 60...36_000

    /// What `POST /archive` asked beyond the basics (nil: not given).
    struct Options: Equatable {
        var multiArchiveTag: String?
        var maxDurationSeconds: Int?
    }

    /// Reads `multiArchiveTag` (a string of 1...256 bytes, or null), `maxDuration` (whole
    /// seconds 60...36000, or null) and refuses a `resolution` with individual output (400).
    static func options(_ body: [String: Any], individual: Bool) -> Result<Options, RESTError> {
        var options = Options()
        if let value = body["multiArchiveTag"], !(value is NSNull) {
            guard let tag = value as? String, (1...idLimit).contains(tag.utf8.count) else {
                return .failure(RESTError(400, "multiArchiveTag must be a string of 1 to \(idLimit) bytes"))
            }
            options.multiArchiveTag = tag
        }
        if let value = body["maxDuration"], !(value is NSNull) {
            guard let seconds = wholeNumber(value), maxDurationRange.contains(seconds) else {
                return .failure(RESTError(400, "maxDuration must be a whole number of seconds from \(maxDurationRange.lowerBound) to \(maxDurationRange.upperBound)"))
            }
            options.maxDurationSeconds = seconds
        }
        if individual, let resolution = body["resolution"], !(resolution is NSNull) {
            return .failure(RESTError(400, "Invalid parameters: resolution cannot be supplied for individual output mode"))
        }
        return .success(options)
    }

    /// A JSON number that is a whole number of magnitude below 10^15 (not a boolean, not a
    /// fraction), else nil.
    static func wholeNumber(_ value: Any) -> Int? {
        guard !(value is Bool), let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double.rounded() == double, abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// The change a `PATCH …/streams` body asks: exactly one of `addStream` (with optional
    /// boolean `hasAudio`/`hasVideo`, default true) or `removeStream`, each a stream id of
    /// 1...256 bytes; nil if it is malformed.
    static func streamChange(_ body: [String: Any]) -> ArchiveStreamChange? {
        let add = body["addStream"]
        let remove = body["removeStream"]
        func id(_ value: Any) -> String? {
            guard let text = value as? String, (1...idLimit).contains(text.utf8.count) else { return nil }
            return text
        }
        func track(_ name: String) -> Bool? {
            guard let value = body[name], !(value is NSNull) else { return true }
            return value as? Bool
        }
        switch (add, remove) {
        case (let add?, nil):
            guard let streamId = id(add), let audio = track("hasAudio"), let video = track("hasVideo") else { return nil }
            return .add(streamId: streamId, hasAudio: audio, hasVideo: video)
        case (nil, let remove?):
            return id(remove).map { .remove(streamId: $0) }
        default:
            return nil
        }
    }
}
