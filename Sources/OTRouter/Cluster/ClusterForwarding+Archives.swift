import Foundation
import OTNet

/// REST calls by archive id (`GET`/`DELETE …/archive/{id}`, `POST …/archive/{id}/stop`,
/// `PATCH …/archive/{id}/streams`, `PUT …/archive/{id}/layout`) on any node: an archive
/// lives at the node that owned its session when it started, which recorded its id in
/// Redis (``ClusterNode/archiveStarted(_:)``); a call reaching another node is forwarded
/// there like a session's call (same mark, at most one hop).
extension ClusterForwarding {
    /// Longest archive id looked up in Redis: ids are UUIDs (36 characters); anything
    /// longer is answered here (404) without asking Redis.
    static let longestArchiveId = 128

    /// The archive a `/v2/project/{apiKey}/…` call names by id (`path` the part after the
    /// API key), nil for calls about no single archive (start, list).
    static func archiveId(of request: HTTPRequest, path: [String]) -> String? {
        guard path.count >= 2, path[0] == "archive", !path[1].isEmpty, path[1].utf8.count <= longestArchiveId else { return nil }
        switch (request.method, path.count > 2 ? path[2] : nil) {
        case ("GET", nil), ("DELETE", nil), ("POST", "stop"?), ("PATCH", "streams"?), ("PUT", "layout"?): return path[1]
        default: return nil
        }
    }

    /// Where a call about archive `archiveId` is answered: nil here (this node holds it, or
    /// no node recorded it: the single router's 404 follows), else the holder's answer; 503
    /// when Redis or the holder does not answer. Cost: nothing for an archive held here;
    /// else two Redis round trips, and one HTTP exchange when held elsewhere.
    func forwardByArchive(_ request: HTTPRequest, archiveId: String) -> Result<HTTPResponse, RESTError>? {
        if cluster.holdsArchive(archiveId) { return nil }
        let holder: ClusterSessionOwner?
        do throws(RedisError) { holder = try cluster.archiveHolder(archiveId) } catch {
            return .failure(RESTError(503, "the cluster's Redis does not answer, so the node holding archive \(archiveId) is unknown: \(error.description)"))
        }
        guard let holder, holder.nodeId != cluster.nodeId else { return nil }
        return relay(request, to: holder, about: "archive \(archiveId)", session: nil)
    }
}
