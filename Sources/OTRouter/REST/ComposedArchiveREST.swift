import Foundation
import OTNet
import OTRecording

/// The REST pieces of composed archives, kept apart from `RESTAPI` so its routes stay
/// short: the `layout` and `resolution` of `POST /archive`, `PUT /archive/{id}/layout`
/// and `PUT /session/{id}/stream` (streams' layout class lists). Bodies and statuses as
/// OpenTok's REST reference gives them. Cost: a JSON parse per request.
enum ComposedArchiveREST {
    /// Reads `layout` and checks `resolution` of a start request into `request`; the error
    /// to answer when either is wrong.
    static func read(_ body: [String: Any], into request: inout SessionHub.ArchiveRequest) -> RESTError? {
        if let resolution = body["resolution"], !(resolution is NSNull) {
            guard let text = resolution as? String, CanvasResolution(parsing: text) != nil else {
                return RESTError(400, "resolution must be one of \(CanvasResolution.supported.map(\.description).joined(separator: ", "))")
            }
        }
        if let layout = body["layout"], !(layout is NSNull) {
            switch parseLayout(layout) {
            case .success(let parsed): request.layout = parsed
            case .failure(let error): return error
            }
        }
        return nil
    }

    /// `PUT …/archive/{id}/layout`; nil for any other route.
    static func archiveRoute(hub: SessionHub, apiKey: String, method: String, rest: [String], request: HTTPRequest) -> HTTPResponse? {
        guard method == "PUT", rest.count == 2, rest[1] == "layout" else { return nil }
        guard let body = RESTBodies.jsonObject(request.body) else { return failure(RESTError(400, "the body is not a JSON object")) }
        switch parseLayout(body) {
        case .failure(let error): return failure(error)
        case .success(let layout):
            if let error = hub.setArchiveLayout(apiKey: apiKey, archiveId: rest[0], layout) { return failure(error) }
            return HTTPResponse(status: 200)  // the Python SDK accepts only 200 here
        }
    }

    /// `PUT …/session/{id}/stream` with `{"items": [{"id", "layoutClassList"}]}`; nil for any other route.
    static func sessionRoute(hub: SessionHub, apiKey: String, method: String, sessionId: String, rest: [String],
                             request: HTTPRequest) -> HTTPResponse? {
        guard method == "PUT", rest == ["stream"] else { return nil }
        guard let body = RESTBodies.jsonObject(request.body), let items = body["items"] as? [[String: Any]], !items.isEmpty,
              items.count <= 1_000 else {
            return failure(RESTError(400, "the body must be {\"items\": [{\"id\": …, \"layoutClassList\": […]}]}"))
        }
        var updates: [(streamId: String, classes: [String])] = []
        for item in items {
            guard let id = item["id"] as? String, !id.isEmpty, let classes = item["layoutClassList"] as? [String] else {
                return failure(RESTError(400, "each item needs an \"id\" and a \"layoutClassList\" array of strings"))
            }
            guard classes.count <= 64, classes.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 }) else {
                return failure(RESTError(400, "a layoutClassList holds at most 64 non-empty class names of at most 64 bytes"))
            }
            updates.append((id, classes))
        }
        if let error = hub.setStreamClassLists(apiKey: apiKey, sessionId: sessionId, updates) { return failure(error) }
        return HTTPResponse(status: 200)  // the Python SDK accepts only 200 here
    }

    /// A `layout` object: `{type, stylesheet?, screenshareType?}`.
    static func parseLayout(_ value: Any) -> Result<CompositionLayout, RESTError> {
        guard let object = value as? [String: Any] else { return .failure(RESTError(400, "layout must be an object {\"type\": …}")) }
        func text(_ key: String) -> String?? {
            guard let field = object[key], !(field is NSNull) else { return .some(nil) }
            return (field as? String).map { .some($0) } ?? nil
        }
        guard let type = text("type"), let stylesheet = text("stylesheet"), let screenshare = text("screenshareType") else {
            return .failure(RESTError(400, "layout.type, layout.stylesheet and layout.screenshareType must be strings"))
        }
        return CompositionLayout.parse(type: type, stylesheet: stylesheet, screenshareType: screenshare)
            .mapError { RESTError(400, $0.message) }
    }

    private static func failure(_ error: RESTError) -> HTTPResponse { .json(error.status, RESTBodies.error(error).text) }
}
