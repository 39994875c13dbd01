import Foundation
import OTNet

/// REST calls for a session owned by another node: forwarded to the owner with the same
/// method, path, query, body and `X-OPENTOK-AUTH` header, plus this node's signed mark
/// (``ClusterMarker/restHeader``); the owner's answer is returned verbatim. A marked
/// request is always answered where it lands, so a request crosses at most one hop.
extension ClusterForwarding {
    /// What to do with `request` (already authenticated here, for `apiKey`): nil to answer
    /// it locally, else the owner's answer (or 503 when the owner cannot be reached, 403 for
    /// a forged mark). `path` is the part after `/v2/project/{apiKey}`.
    /// Cost: for a session this node does not own, two Redis round trips and one HTTP
    /// exchange with the owner (up to 5 s) on the calling thread.
    func forward(_ request: HTTPRequest, path: [String]) -> Result<HTTPResponse, RESTError>? {
        if let mark = request.headers[ClusterMarker.restHeader] {
            do throws(ClusterMarker.Forged) {
                _ = try marker.verifyREST(mark, method: request.method, path: request.path)
                return nil  // forwarded by a peer: answered here, never forwarded again
            } catch {
                forged("rest", remote: request.remoteAddress)
                return .failure(RESTError(403, "the request carries a cluster forwarding mark that does not verify"))
            }
        }
        if let archiveId = Self.archiveId(of: request, path: path) { return forwardByArchive(request, archiveId: archiveId) }
        guard let sessionId = Self.sessionId(of: request, path: path), cluster.believedOwner(of: sessionId) != cluster.nodeId else {
            return nil
        }
        let owner: ClusterSessionOwner?
        do throws(RedisError) { owner = try cluster.owner(ofSession: sessionId) } catch {
            return .failure(RESTError(503, "the cluster's Redis does not answer: \(error.description)"))
        }
        guard let owner, owner.nodeId != cluster.nodeId else { return nil }
        return relay(request, to: owner, about: "session \(sessionId)", session: sessionId)
    }

    /// Sends `request` to `owner` (the node holding what it is `about`) with this node's
    /// mark, and returns its answer verbatim; 503 when the node is not registered or does
    /// not answer within 5 s. Cost: one HTTP exchange on the calling thread.
    func relay(_ request: HTTPRequest, to owner: ClusterSessionOwner, about what: String, session sessionId: String?)
        -> Result<HTTPResponse, RESTError> {
        guard let node = owner.node else {
            counters.withLock { $0.restOwnerUnreachable += 1 }
            return .failure(RESTError(503, "the node holding \(what) (\(owner.nodeId)) is not reachable; try again"))
        }
        var url = node.url
        while url.hasSuffix("/") { url.removeLast() }
        url += request.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? request.path
        if !request.query.isEmpty { url += "?" + request.query.map { "\(Self.escape($0.name))=\(Self.escape($0.value))" }.joined(separator: "&") }
        var headers = [ClusterMarker.restHeader: marker.restHeaderValue(via: cluster.nodeId, method: request.method, path: request.path)]
        for name in ["x-opentok-auth", "content-type", "accept"] { if let value = request.headers[name] { headers[name] = value } }
        do throws(WebError) {
            let answer = try HTTPClient.request(request.method, url, headers: headers, body: request.body, timeoutSeconds: 5)
            counters.withLock { $0.restForwarded += 1 }
            log.log(.debug, "cluster.restForwarded", session: sessionId, ["owner": owner.nodeId, "about": what, "status": String(answer.status)])
            var response = HTTPResponse(status: answer.status, contentType: answer.headers["content-type"], body: answer.body)
            if let authenticate = answer.headers["www-authenticate"] { response.headers["WWW-Authenticate"] = authenticate }
            return .success(response)
        } catch {
            counters.withLock { $0.restOwnerUnreachable += 1 }
            log.log(.warning, "cluster.restOwnerUnreachable", session: sessionId, ["owner": owner.nodeId, "about": what, "error": error.message])
            return .failure(RESTError(503, "the node holding \(what) (\(owner.nodeId)) does not answer: \(error.message)"))
        }
    }

    /// The session a `/v2/project/{apiKey}/…` call is about, nil for calls about none (or
    /// the owner lookup itself): `session/{id}/…`, `POST archive` by its body's `sessionId`,
    /// and `GET archive?sessionId=…` (one session's archives: its owner's list).
    static func sessionId(of request: HTTPRequest, path: [String]) -> String? {
        if path.count >= 3, path[0] == "session", path[2] != "owner" { return path[1] }
        if request.method == "GET", path == ["archive"], let id = request.queryValue("sessionId"), !id.isEmpty, id.utf8.count <= 512 {
            return id
        }
        if request.method == "POST", path == ["archive"], request.body.count <= 65_536,
           let object = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
           let id = object["sessionId"] as? String, !id.isEmpty, id.utf8.count <= 512 {
            return id
        }
        return nil
    }
}
