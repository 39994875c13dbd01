import Foundation
import OTNet
import OTSignaling

/// The REST API in OpenTok's shape, so OpenTok server SDKs can drive the router:
/// `POST /session/create` and, under `/v2/project/{apiKey}`, signals, force disconnect,
/// force mute, archives and streams, each authenticated by an `X-OPENTOK-AUTH` project
/// JWT; plus `/metrics`, `/healthz` and the JavaScript client (`/otkit.js`, ``WebAssets``)
/// without authentication. Statuses and bodies are
/// the ones the Python SDK 3.15.0 accepts (see docs: opentok-server-sdk reference).
struct RESTAPI {
    let hub: SessionHub
    /// The `jti`s of accepted project JWTs, so none is accepted twice.
    let replays = JWTReplayGuard()

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)  // folds `//`
        let method = request.method
        if let asset = WebAssets.response(to: request) { return asset }  // /otkit.js, /room/…, no authentication
        if let devToken = hub.devTokenResponse(to: request) { return devToken }  // /room/{id}/token (dev tokens)
        if let file = hub.archiveFileResponse(to: request) { return file }  // /archive-file/{id}.zip (signed link)
        if method == "GET", segments == ["healthz"] { return .text(200, "ok\n") }
        if method == "GET", segments == ["metrics"] {
            return .text(200, PrometheusText.render(hub.metrics()), contentType: PrometheusText.contentType)
        }
        if method == "POST", segments == ["session", "create"] { return createSession(request) }
        if method == "POST", segments == ["cluster", "v1", "cascade"] { return cascade(request) }
        if segments.count >= 3, segments[0] == "v2", segments[1] == "project" {
            let path = segments
            let apiKey = path[2]
            if let refusal = authenticate(request.headers["x-opentok-auth"], apiKey: apiKey) { return failure(refusal) }
            // A session owned by another node of the cluster: its owner answers (docs/scale.md).
            switch hub.forwarding?.forward(request, path: Array(path.dropFirst(3))) {
            case .success(let response)?: return response
            case .failure(let error)?: return failure(error)
            case nil: break
            }
            return project(apiKey: apiKey, method: request.method, path: Array(path.dropFirst(3)), request: request)
        }
        return failure(RESTError(404, "no such endpoint: \(request.method) \(request.path)"))
    }

    /// The `*` segments of `path` if it matches `pattern` segment for segment.
    func match(_ pattern: [String], _ path: [String]) -> [String]? {
        guard pattern.count == path.count else { return nil }
        var captures: [String] = []
        for (expected, actual) in zip(pattern, path) {
            if expected == "*" { captures.append(actual) } else if expected != actual { return nil }
        }
        return captures
    }

    /// An archive's JSON with its signed download link on the host the client asked.
    func archiveBody(_ archive: ArchiveRecord, _ request: HTTPRequest) -> JSONValue {
        let scheme = hub.configuration.tlsCertificatePath == nil ? "http" : "https"
        let url = hub.archiveLinkPath(archive).flatMap { path in request.headers["host"].map { "\(scheme)://\($0)\(path)" } }
        return RESTBodies.archive(archive, url: url)
    }

    /// `GET /v2/project/{apiKey}/session/{sessionId}/owner` (OTKit's own, not OpenTok's):
    /// which node of the cluster owns the session, asked of Redis — `{"sessionId","nodeId",
    /// "url","publicIP","mediaPort"}` (`url` and the rest absent if the owner has been
    /// pruned). 404 when nobody claims it or it is not the project's, 501 for a router
    /// running alone, 503 when Redis does not answer. Cost: two Redis round trips on this thread.
    private func owner(apiKey: String, sessionId: String) -> HTTPResponse {
        guard let cluster = hub.cluster else { return failure(RESTError(501, "this router runs alone (no --redis): every session it knows is its own")) }
        guard let parsed = try? OpenTokSessionID(parsing: sessionId), parsed.belongs(toAPIKey: apiKey) else {
            return failure(RESTError(404, "Session not found"))
        }
        let owner: ClusterSessionOwner?
        do {
            owner = try cluster.owner(ofSession: sessionId)
        } catch {
            return failure(RESTError(503, "the cluster's Redis does not answer: \(error.description)"))
        }
        guard let owner else { return failure(RESTError(404, "no node owns session \(sessionId) now")) }
        var fields: [(String, JSONValue)] = [("sessionId", .string(sessionId)), ("nodeId", .string(owner.nodeId))]
        if let node = owner.node {
            fields += [("url", .string(node.url)), ("publicIP", .string(node.publicIP))]
            if let port = node.mediaPort { fields.append(("mediaPort", .int(Int64(port)))) }
        }
        return ok(.object(fields))
    }

    /// `POST /cluster/v1/cascade` (OTKit's own, router to router): opens, closes or steers
    /// a media cascade egress of this router (`CascadeControl`), authenticated by the
    /// cluster secret. 501 when the media plane is not a `MediaRouter`.
    private func cascade(_ request: HTTPRequest) -> HTTPResponse {
        guard let router = hub.media as? MediaRouter else { return failure(RESTError(501, "this router forwards no media")) }
        let reply = CascadeControl(router: router, secret: hub.configuration.clusterSecret)
            .handle(presented: request.headers[CascadeControl.secretHeader], body: request.body)
        return .json(reply.status, reply.body)
    }

    func failure(_ error: RESTError) -> HTTPResponse { .json(error.status, RESTBodies.error(error).text) }
    func ok(_ body: JSONValue) -> HTTPResponse { .json(200, body.text) }

    // MARK: - /session/create

    private func createSession(_ request: HTTPRequest) -> HTTPResponse {
        guard let header = request.headers["x-opentok-auth"], !header.isEmpty else {
            return failure(RESTError(401, "authentication failed: missing X-OPENTOK-AUTH header"))
        }
        let apiKey = RESTBodies.unverifiedIssuer(header) ?? ""
        if var refusal = authenticate(header, apiKey: apiKey) {
            if refusal.status == 401 { refusal.status = 403 }  // a credential was presented
            return failure(refusal)
        }
        if hub.perform({ hub.draining }) {
            return failure(RESTError(503, "this router is draining: create the session on another router of the cluster"))
        }
        guard let form = RESTBodies.form(request.body) else { return failure(RESTError(400, "the body is not form-encoded")) }
        let relayed: Bool
        switch form["p2p.preference"] ?? "enabled" {
        case "enabled": relayed = true
        case "disabled": relayed = false
        case let other: return failure(RESTError(400, "p2p.preference must be enabled or disabled, not \(other)"))
        }
        guard let archiveMode = ArchiveMode(rawValue: form["archiveMode"] ?? "manual") else {
            return failure(RESTError(400, "archiveMode must be manual or always"))
        }
        if archiveMode == .always && relayed {
            return failure(RESTError(400, "A session with always archive mode must also have the routed media mode."))
        }
        let e2ee: Bool
        switch form["e2ee"] ?? "false" {
        case "true": e2ee = true
        case "false": e2ee = false
        case let other: return failure(RESTError(400, "e2ee must be true or false, not \(other)"))
        }
        // End-to-end encryption needs the media router (OpenTok: routed sessions only), and
        // an archive cannot read the media it would record.
        if e2ee && relayed {
            return failure(RESTError(400, "A session with end-to-end encryption must also have the routed media mode."))
        }
        if e2ee && archiveMode == .always {
            return failure(RESTError(400, "A session with end-to-end encryption cannot have always archive mode."))
        }
        let sessionId: String
        do {
            sessionId = try hub.createSession(apiKey: apiKey, relayed: relayed, archiveMode: archiveMode,
                                              archiveName: form["archiveName"], archiveResolution: form["archiveResolution"],
                                              location: form["location"] ?? "", e2ee: e2ee)
        } catch {
            return failure(RESTError(400, "cannot create the session: \(error.description)"))
        }
        let now = SessionHub.nowMilliseconds()
        let body = JSONValue.array([.object([
            ("session_id", .string(sessionId)), ("project_id", .string(apiKey)), ("partner_id", .string(apiKey)),
            ("create_dt", .string(RESTBodies.createDate(milliseconds: now))), ("media_server_url", .string("")),
        ])])
        return .json(200, body.text)
    }

    // MARK: - /v2/project/{apiKey}/…

    private func project(apiKey: String, method: String, path: [String], request: HTTPRequest) -> HTTPResponse {
        switch (method, path.count > 0 ? path[0] : "") {
        case (_, "session") where path.count >= 3: return session(apiKey: apiKey, method: method, sessionId: path[1],
                                                                    rest: Array(path.dropFirst(2)), request: request)
        case (_, "archive"): return archive(apiKey: apiKey, method: method, rest: Array(path.dropFirst()), request: request)
        case ("GET", "issues") where path.count == 2:
            guard let issue = hub.issue(apiKey: apiKey, issueId: path[1]) else { return failure(RESTError(404, "Issue not found")) }
            return ok(RESTBodies.issue(issue))
        default:
            return failure(RESTError(404, "no such endpoint: \(method) \(request.path)"))
        }
    }

    private func session(apiKey: String, method: String, sessionId: String, rest: [String], request: HTTPRequest) -> HTTPResponse {
        if method == "GET", match(["owner"], rest) != nil { return owner(apiKey: apiKey, sessionId: sessionId) }
        if let response = ComposedArchiveREST.sessionRoute(hub: hub, apiKey: apiKey, method: method, sessionId: sessionId,
                                                           rest: rest, request: request) { return response }
        if method == "POST", match(["signal"], rest) != nil {
            return signal(apiKey: apiKey, sessionId: sessionId, to: nil, body: request.body)
        }
        if method == "POST", let ids = match(["connection", "*", "signal"], rest) {
            return signal(apiKey: apiKey, sessionId: sessionId, to: ids[0], body: request.body)
        }
        if method == "DELETE", let ids = match(["connection", "*"], rest) {
            if let error = hub.restForceDisconnect(apiKey: apiKey, sessionId: sessionId, connectionId: ids[0]) { return failure(error) }
            return .noContent
        }
        if method == "POST", match(["mute"], rest) != nil {
            guard let body = RESTBodies.jsonObject(request.body) else { return failure(RESTError(400, "the body is not a JSON object")) }
            let active = body["active"] as? Bool ?? true
            var excluded: [String] = []
            if let list = body["excludedStreams"], !(list is NSNull) {
                guard let strings = list as? [String] else { return failure(RESTError(400, "excludedStreams must be an array of stream ids")) }
                excluded = strings
            }
            if let error = hub.restMuteAll(apiKey: apiKey, sessionId: sessionId, active: active, excluded: excluded) { return failure(error) }
            return .noContent
        }
        if method == "POST", let ids = match(["stream", "*", "mute"], rest) {
            if let error = hub.restMuteStream(apiKey: apiKey, sessionId: sessionId, streamId: ids[0]) { return failure(error) }
            return .noContent
        }
        if method == "GET", match(["stream"], rest) != nil {
            guard let streams = hub.streams(apiKey: apiKey, sessionId: sessionId) else { return failure(RESTError(404, "Session not found")) }
            return ok(RESTBodies.list(count: streams.count, streams.map(RESTBodies.stream)))
        }
        if method == "GET", let ids = match(["stream", "*"], rest) {
            guard let stream = hub.streams(apiKey: apiKey, sessionId: sessionId)?.first(where: { $0.wire.streamId == ids[0] }) else {
                return failure(RESTError(404, "Stream not found"))
            }
            return ok(RESTBodies.stream(stream))
        }
        return failure(RESTError(404, "no such endpoint: \(method) \(request.path)"))
    }

    private func signal(apiKey: String, sessionId: String, to: String?, body: [UInt8]) -> HTTPResponse {
        guard !body.isEmpty, let object = RESTBodies.jsonObject(body) else {
            return failure(RESTError(400, "the body must be a JSON object {\"type\": ..., \"data\": ...}"))
        }
        guard let data = object["data"] as? String else { return failure(RESTError(400, "\"data\" (a string) is required")) }
        var type = ""
        if let value = object["type"] {
            guard let text = value as? String else { return failure(RESTError(400, "\"type\" must be a string")) }
            type = text
        }
        if let violation = SignalLimits.check(type: type, data: data) {
            return failure(RESTError(violation.httpStatus, violation.message))
        }
        if let error = hub.restSignal(apiKey: apiKey, sessionId: sessionId, to: to, type: type, data: data) { return failure(error) }
        return .noContent
    }

    private func archive(apiKey: String, method: String, rest: [String], request: HTTPRequest) -> HTTPResponse {
        if let response = ComposedArchiveREST.archiveRoute(hub: hub, apiKey: apiKey, method: method, rest: rest,
                                                           request: request) { return response }
        if method == "POST", rest.isEmpty {
            guard let body = RESTBodies.jsonObject(request.body) else { return failure(RESTError(400, "the body is not a JSON object")) }
            guard let sessionId = body["sessionId"] as? String, !sessionId.isEmpty else {
                return failure(RESTError(400, "\"sessionId\" is required"))
            }
            var archiveRequest = SessionHub.ArchiveRequest(sessionId: sessionId)
            archiveRequest.name = body["name"] as? String
            archiveRequest.hasAudio = body["hasAudio"] as? Bool ?? true
            archiveRequest.hasVideo = body["hasVideo"] as? Bool ?? true
            guard archiveRequest.hasAudio || archiveRequest.hasVideo else {
                return failure(RESTError(400, "hasAudio and hasVideo cannot both be false"))
            }
            if let mode = body["outputMode"] as? String {
                guard ["composed", "individual"].contains(mode) else { return failure(RESTError(400, "outputMode must be composed or individual")) }
                archiveRequest.outputMode = mode
            }
            if let mode = body["streamMode"] as? String {
                guard ["auto", "manual"].contains(mode) else { return failure(RESTError(400, "streamMode must be auto or manual")) }
                archiveRequest.streamMode = mode
            }
            archiveRequest.resolution = body["resolution"] as? String
            if let refusal = Self.readArchiveOptions(body, into: &archiveRequest) { return failure(refusal) }
            if let error = ComposedArchiveREST.read(body, into: &archiveRequest) { return failure(error) }  // layout, resolution
            switch hub.startArchive(apiKey: apiKey, archiveRequest) {
            case .success(let archive):
                hub.cluster?.settle()  // its id → node entry is in Redis before the caller can use the id elsewhere
                return ok(archiveBody(archive, request))
            case .failure(let error): return failure(error)
            }
        }
        if method == "GET", rest.isEmpty {
            let offset = request.queryValue("offset").map { Int($0) ?? -1 } ?? 0  // not a number: refused below
            let count = request.queryValue("count").map { Int($0) ?? -1 } ?? 50
            guard offset >= 0, (0...1000).contains(count) else { return failure(RESTError(400, "offset ≥ 0 and count 0...1000")) }
            let list = hub.listArchives(apiKey: apiKey, sessionId: request.queryValue("sessionId"), offset: offset, count: count)
            return ok(RESTBodies.list(count: list.total, list.items.map { archiveBody($0, request) }))
        }
        if method == "GET", let ids = match(["*"], rest) {
            let archiveId = ids[0]
            guard let archive = hub.archive(apiKey: apiKey, archiveId: archiveId) else { return failure(RESTError(404, "Archive not found")) }
            return ok(archiveBody(archive, request))
        }
        if method == "POST", let ids = match(["*", "stop"], rest) {
            switch hub.stopArchive(apiKey: apiKey, archiveId: ids[0]) {
            case .success(let archive): return ok(archiveBody(archive, request))
            case .failure(let error): return failure(error)
            }
        }
        if method == "PATCH", let ids = match(["*", "streams"], rest) {
            return changeArchiveStreams(apiKey: apiKey, archiveId: ids[0], request: request)
        }
        if method == "DELETE", let ids = match(["*"], rest) {
            if let error = hub.deleteArchive(apiKey: apiKey, archiveId: ids[0]) { return failure(error) }
            return .noContent
        }
        return failure(RESTError(404, "no such endpoint: \(method) \(request.path)"))
    }
}
