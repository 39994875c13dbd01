import Foundation
import OTNet

/// The archive options beyond the basics (`ArchiveBodyParser`) and
/// `PATCH /archive/{id}/streams`, in OpenTok's shape.
extension RESTAPI {
    /// Applies the `POST /archive` options `ArchiveBodyParser.options` reads to `request`;
    /// a refusal (400) or nil.
    static func readArchiveOptions(_ body: [String: Any], into request: inout SessionHub.ArchiveRequest) -> RESTError? {
        switch ArchiveBodyParser.options(body, individual: request.outputMode == "individual") {
        case .failure(let refusal):
            return refusal
        case .success(let options):
            request.multiArchiveTag = options.multiArchiveTag
            if let seconds = options.maxDurationSeconds { request.maxDurationSeconds = seconds }
            return nil
        }
    }

    /// `PATCH /archive/{id}/streams` with `{"addStream": id, "hasAudio": b, "hasVideo": b}`
    /// or `{"removeStream": id}`: 204; 400 for a body that is neither (or both), 404/409/400
    /// from `SessionHub.changeArchiveStreams`.
    func changeArchiveStreams(apiKey: String, archiveId: String, request: HTTPRequest) -> HTTPResponse {
        guard let body = RESTBodies.jsonObject(request.body), let change = ArchiveBodyParser.streamChange(body) else {
            return failure(RESTError(400, "the body must be {\"addStream\": streamId, \"hasAudio\": bool, \"hasVideo\": bool} or {\"removeStream\": streamId}"))
        }
        if let error = hub.changeArchiveStreams(apiKey: apiKey, archiveId: archiveId, change) { return failure(error) }
        return .noContent
    }
}
