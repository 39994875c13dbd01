import Foundation
import Glibc
import OTNet
import OTSignaling

/// The archive endpoints of one router and project: a fresh project JWT per request.
struct ArchiveClient {
    let base: String
    let credentials: ProjectCredentials

    init(_ args: Arguments) throws {
        guard let router = args.options["router"] else {
            throw Arguments.UsageError(description: "--router URL is required, e.g. --router http://127.0.0.1:8080 (the URL `otkit router` prints)")
        }
        let url = try SessionOptions.checkedURL(router).replacingOccurrences(of: "ws://", with: "http://")
        guard url.hasPrefix("http://") else {
            throw Arguments.UsageError(description: "--router must be an http:// URL (this client speaks no TLS)")
        }
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        guard let key = args.options["api-key"] ?? environment("OTKIT_API_KEY"),
              let secret = args.options["api-secret"] ?? environment("OTKIT_API_SECRET"), !key.isEmpty, !secret.isEmpty else {
            throw Arguments.UsageError(description: "otkit archive needs --api-key and --api-secret (or OTKIT_API_KEY and OTKIT_API_SECRET)")
        }
        credentials = ProjectCredentials(apiKey: key, apiSecret: secret)
        base = url + "/v2/project/" + key
    }

    /// Sends the request; the status and body, or `CommandError` when the router cannot be reached.
    func send(_ method: String, _ path: String, json: [String: Any]? = nil) throws -> (status: Int, body: [UInt8]) {
        var headers = ["X-OPENTOK-AUTH": ProjectJWT.sign(credentials: credentials), "Accept": "application/json"]
        var body: [UInt8] = []
        if let json {
            headers["Content-Type"] = "application/json"
            body = Array(try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
        }
        do {
            let response = try HTTPClient.request(method, base + path, headers: headers, body: body)
            return (response.status, response.body)
        } catch {
            throw CommandError("cannot reach the router at \(base): \(error)")
        }
    }

    /// Sends the request and prints the body (if any); a refusal throws with the router's message.
    func print(_ method: String, _ path: String, json: [String: Any]? = nil) throws -> Int32 {
        let response = try checked(method, path, json: json)
        if !response.isEmpty { Swift.print(String(decoding: response, as: UTF8.self)) }
        return 0
    }

    /// The response's JSON object; a refusal or a body that is not an object throws.
    func object(_ method: String, _ path: String) throws -> [String: Any] {
        let body = try checked(method, path, json: nil)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            throw CommandError("the router's answer is not a JSON object: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        return object
    }

    private func checked(_ method: String, _ path: String, json: [String: Any]?) throws -> [UInt8] {
        let response = try send(method, path, json: json)
        guard (200..<300).contains(response.status) else {
            let parsed = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
            let message = parsed?["message"] as? String ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            throw CommandError("the router answered HTTP \(response.status): \(message)")
        }
        return response.body
    }
}
