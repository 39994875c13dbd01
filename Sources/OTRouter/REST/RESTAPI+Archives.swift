import Foundation
import OTNet

/// The archive options beyond the basics (`multiArchiveTag`, `maxDuration`, resolution
/// with individual output) and `PATCH /archive/{id}/streams`, in OpenTok's shape.
extension RESTAPI {
    /// The longest `multiArchiveTag` accepted (OpenTok documents none; this bounds memory).
    static let multiArchiveTagLimit = 256
    /// `maxDuration`'s range in seconds.
    static let maxDurationRange = 60...36_000

    /// Reads `multiArchiveTag` (a string or null), `maxDuration` (whole seconds 60...36000,
    /// or null) and refuses a `resolution` with individual output. A refusal (400) or nil.
    static func readArchiveOptions(_ body: [String: Any], into request: inout SessionHub.ArchiveRequest) -> RESTError? {
        if let value = body["multiArchiveTag"], !(value is NSNull) {
            guard let tag = value as? String, (1...multiArchiveTagLimit).contains(tag.utf8.count) else {
                return RESTError(400, "multiArchiveTag must be a string of 1 to \(multiArchiveTagLimit) bytes")
            }
            request.multiArchiveTag = tag
        }
        if let value = body["maxDuration"], !(value is NSNull) {
            guard let seconds = wholeNumber(value), maxDurationRange.contains(seconds) else {
                return RESTError(400, "maxDuration must be a whole number of seconds from \(maxDurationRange.lowerBound) to \(maxDurationRange.upperBound)")
            }
            request.maxDurationSeconds = seconds
        }
        if request.outputMode == "individual", let resolution = body["resolution"], !(resolution is NSNull) {
            return RESTError(400, "Invalid parameters: resolution cannot be supplied for individual output mode")
        }
        return nil
    }

    /// A JSON number that is a whole number within `Int` (not a boolean, not a fraction), else nil.
    static func wholeNumber(_ value: Any) -> Int? {
        guard !(value is Bool), let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double.rounded() == double, abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// `PATCH /archive/{id}/streams` with `{"addStream": id, "hasAudio": b, "hasVideo": b}`
    /// or `{"removeStream": id}`: 204; 400 for a body that is neither (or both), 404/409/400
    /// from `SessionHub.changeArchiveStreams`.
    func changeArchiveStreams(apiKey: String, archiveId: String, request: HTTPRequest) -> HTTPResponse {
        guard let body = RESTBodies.jsonObject(request.body), let change = Self.archiveStreamChange(body) else {
            return failure(RESTError(400, "the body must be {\"addStream\": streamId, \"hasAudio\": bool, \"hasVideo\": bool} or {\"removeStream\": streamId}"))
        }
        if let error = hub.changeArchiveStreams(apiKey: apiKey, archiveId: archiveId, change) { return failure(error) }
        return .noContent
    }

    /// The change a `PATCH …/streams` body asks, nil if it is malformed.
    static func archiveStreamChange(_ body: [String: Any]) -> SessionHub.ArchiveStreamChange? {
        let add = body["addStream"] as? String
        let remove = body["removeStream"] as? String
        if let add, remove == nil, body["removeStream"] == nil, !add.isEmpty, add.utf8.count <= 256 {
            func track(_ name: String) -> Bool? {
                guard let value = body[name], !(value is NSNull) else { return true }
                return value as? Bool
            }
            guard let audio = track("hasAudio"), let video = track("hasVideo") else { return nil }
            return .add(streamId: add, hasAudio: audio, hasVideo: video)
        }
        if let remove, body["addStream"] == nil, !remove.isEmpty, remove.utf8.count <= 256 { return .remove(streamId: remove) }
        return nil
    }
}
