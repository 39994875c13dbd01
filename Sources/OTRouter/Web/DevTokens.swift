import Foundation
import OTNet
import OTSignaling

/// Dev tokens: `POST /room/{sessionId}/token` answers `{"apiKey","sessionId","token"}`, a
/// publisher token for the session, so the room page works without a token in its
/// address. Anyone who can reach the router gets one, so it answers only while
/// `RouterConfiguration.devTokensEnabled` (by default: listening on loopback); otherwise
/// 403 (counted with the other REST statuses). `?name=` (64 characters at most) becomes
/// the connection data. No `Access-Control-Allow-Origin`: another site's page may send the
/// request but cannot read the token.
extension SessionHub {
    /// The response to `request` if it is a dev-token request (`/room/{id}/token`), else nil.
    /// Cost: a session lookup under the lock and one HMAC.
    func devTokenResponse(to request: HTTPRequest) -> HTTPResponse? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "room", !parts[2].isEmpty, parts[3] == "token" else { return nil }
        let sessionId = String(parts[2])
        let noStore = ["Cache-Control": "no-store"]
        func refuse(_ status: Int, _ message: String) -> HTTPResponse {
            log.log(.info, "devtoken.refused", ["status": String(status), "remote": request.remoteAddress])
            return HTTPResponse(status: status, contentType: "application/json",
                                headers: status == 405 ? noStore.merging(["Allow": "POST"]) { $1 } : noStore,
                                body: Array(RESTBodies.error(RESTError(status, message)).text.utf8))
        }
        guard request.method == "POST" else { return refuse(405, "dev tokens are minted by POST") }
        guard configuration.devTokensEnabled else {
            return refuse(403, "dev tokens are off on this router (they are on when it listens on loopback or with --dev-tokens); "
                + "open the page with ?token=")
        }
        guard let apiKey = devTokenAPIKey(sessionId) else {
            return refuse(404, "session \(sessionId) is not a session of a project this router serves")
        }
        let name = request.queryValue("name").map { String($0.prefix(64)) } ?? "browser"
        guard let credentials = configuration.project(apiKey),
              let token = try? OpenTokToken.generate(sessionID: sessionId, credentials: credentials, role: .publisher,
                                                     connectionData: name)
        else { return refuse(404, "session \(sessionId) cannot have a token") }
        log.log(.info, "devtoken.issued", session: sessionId, ["apiKey": apiKey])
        let body = JSONValue.object([("apiKey", .string(apiKey)), ("sessionId", .string(sessionId)), ("token", .string(token))])
        return HTTPResponse(status: 200, contentType: "application/json", headers: noStore, body: Array(body.text.utf8))
    }

    /// The API key of `sessionId`: the session's own, or for an id the router has not seen,
    /// the configured project it names (the connect would adopt it); nil for neither.
    private func devTokenAPIKey(_ sessionId: String) -> String? {
        if let known = perform({ sessions[sessionId]?.apiKey }) { return known }
        guard let parsed = try? OpenTokSessionID(parsing: sessionId) else { return nil }
        return configuration.projects.first { parsed.belongs(toAPIKey: $0.apiKey) }?.apiKey
    }
}
