import Foundation
import OTNet
import OTSignaling

/// The bits of the router's REST API the commands use, over OTNet's blocking HTTP
/// client (plain http:// only), authenticated with a project JWT as server SDKs do.
enum RouterClient {
    /// `POST /session/create` for a routed session (media through the router's SFU);
    /// returns its id. Throws `CommandError` saying what the router answered.
    static func createSession(routerURL: String, credentials: ProjectCredentials) throws -> String {
        let base = routerURL.replacingOccurrences(of: "ws://", with: "http://")
        guard base.hasPrefix("http://") else {
            throw CommandError("creating a session needs an http:// router URL (this client speaks no TLS); create it elsewhere and pass --session")
        }
        let response: (status: Int, headers: [String: String], body: [UInt8])
        do {
            response = try HTTPClient.request(
                "POST", base + "/session/create",
                headers: ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: credentials),
                          "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"],
                body: Array("p2p.preference=disabled".utf8))
        } catch {
            throw CommandError("cannot reach the router at \(routerURL): \(error)")
        }
        let text = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200 else {
            throw CommandError("the router refused to create a session (HTTP \(response.status)): \(text.prefix(200))")
        }
        guard let list = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]],
              let id = list.first?["session_id"] as? String else {
            throw CommandError("the router's answer has no session_id: \(text.prefix(200))")
        }
        return id
    }
}
