import Foundation
import OTNet
import OTRouter
import OTSignaling

/// The router's REST API and `/metrics` over OTNet's blocking HTTPClient, authenticated
/// with a `ProjectJWT` as a server SDK would be.
struct RouterREST {
    let router: Router
    let project: ProjectCredentials

    /// POSTs `json` to `/v2/project/{apiKey}/<path>`; returns the status and the body parsed
    /// as a JSON object (empty when the body is empty or not an object).
    func post(_ path: String, _ json: [String: Any] = [:]) throws -> (status: Int, body: [String: Any]) {
        let body = try JSONSerialization.data(withJSONObject: json)
        let response = try HTTPClient.request("POST", router.baseURL + "/v2/project/\(project.apiKey)/" + path,
                                              headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: project),
                                                        "Content-Type": "application/json"],
                                              body: Array(body))
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return (response.status, object ?? [:])
    }

    /// `POST /session/create` with the form `form` (as the server SDKs send it); the
    /// status, the new session's id (nil on refusal) and the error body's message.
    func createSession(_ form: String) throws -> (status: Int, sessionId: String?, message: String?) {
        let response = try HTTPClient.request("POST", router.baseURL + "/session/create",
                                              headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: project),
                                                        "Content-Type": "application/x-www-form-urlencoded"],
                                              body: Array(form.utf8))
        let parsed = try? JSONSerialization.jsonObject(with: Data(response.body))
        let id = ((parsed as? [[String: Any]])?.first?["session_id"]) as? String
        return (response.status, id, (parsed as? [String: Any])?["message"] as? String)
    }

    /// The ids of `sessionId`'s streams as `GET /v2/project/{apiKey}/session/{sessionId}/stream`
    /// lists them (what a server SDK's `list_streams` sees).
    func streamIds(_ sessionId: String) throws -> [String] {
        let response = try HTTPClient.request("GET", router.baseURL + "/v2/project/\(project.apiKey)/session/\(sessionId)/stream",
                                              headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: project)])
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard response.status == 200, let items = object?["items"] as? [[String: Any]] else {
            throw RouterError("GET stream answered \(response.status)")
        }
        return items.compactMap { $0["id"] as? String }
    }

    /// The samples of `GET /metrics`, keyed by name with labels (`otkit_bad_tokens_total{reason="expired"}`).
    func metrics() throws -> [String: Double] {
        let response = try HTTPClient.request("GET", router.baseURL + "/metrics")
        var samples: [String: Double] = [:]
        for line in String(decoding: response.body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }
}
