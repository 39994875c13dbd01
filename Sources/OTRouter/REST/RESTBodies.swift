import Foundation
import OTSignaling

/// The JSON bodies of the REST API, in the shapes the OpenTok server SDKs parse.
enum RESTBodies {
    /// `{"code": status, "message": ...}`.
    static func error(_ error: RESTError) -> JSONValue {
        .object([("code", .int(Int64(error.status))), ("message", .string(error.message))])
    }

    /// The project id as OpenTok writes it: a number when the key is all digits.
    static func projectId(_ apiKey: String) -> JSONValue {
        if let number = Int64(apiKey), String(number) == apiKey { return .int(number) }
        return .string(apiKey)
    }

    /// An archive. `createdAt` in milliseconds and `partnerId` are what the Python SDK needs;
    /// `url` (the signed download link) once the archive is `available`, else null; `size`
    /// the file's bytes (ZIP or MP4); `reason` why it failed.
    static func archive(_ archive: ArchiveRecord, url: String? = nil) -> JSONValue {
        let duration = archive.durationSeconds.map(Int64.init) ?? archive.stoppedAt.map { ($0 - archive.createdAt) / 1000 } ?? 0
        let reason = archive.reason ?? ""
        return .object([
            ("id", .string(archive.id)), ("status", .string(archive.status)), ("name", .optional(archive.name)),
            ("sessionId", .string(archive.sessionId)), ("projectId", projectId(archive.apiKey)),
            ("partnerId", projectId(archive.apiKey)), ("createdAt", .int(archive.createdAt)), ("size", .int(Int64(archive.size))),
            ("duration", .int(duration)), ("hasAudio", .bool(archive.hasAudio)), ("hasVideo", .bool(archive.hasVideo)),
            ("outputMode", .string(archive.outputMode)), ("streamMode", .string(archive.streamMode)),
            ("resolution", .string(archive.resolution)), ("url", .optional(url)), ("streams", streams(archive)),
            ("reason", .string(reason)), ("multiArchiveTag", .optional(archive.multiArchiveTag)),
            ("maxDuration", .int(Int64(archive.maxDurationSeconds))),
        ])
    }

    /// A stream as `GET …/stream/{id}` gives it.
    static func stream(_ stream: StreamRecord) -> JSONValue {
        .object([("id", .string(stream.wire.streamId)), ("videoType", .string(stream.wire.videoType)),
                 ("name", .string(stream.wire.name)), ("layoutClassList", .array(stream.layoutClassList.map(JSONValue.string)))])
    }

    /// `{"count": n, "items": [...]}`.
    static func list(count: Int, _ items: [JSONValue]) -> JSONValue {
        .object([("count", .int(Int64(count))), ("items", .array(items))])
    }

    /// A stored issue report.
    static func issue(_ issue: IssueRecord) -> JSONValue {
        .object([("id", .string(issue.id)), ("sessionId", .string(issue.sessionId)), ("connectionId", .string(issue.connectionId)),
                 ("time", .int(issue.time)), ("description", .string(issue.report.description)),
                 ("stats", .array(issue.report.stats.map(JSONValue.string))), ("logs", .array(issue.report.logs.map(JSONValue.string)))])
    }

    /// OpenTok's `create_dt` form: `Sun Nov 29 22:10:25 UTC 2026`.
    static func createDate(milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss 'UTC' yyyy"
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// `application/x-www-form-urlencoded` fields (`+` is a space), nil if not decodable.
    static func form(_ body: [UInt8]) -> [String: String]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { return nil }
            fields[name] = value
        }
        return fields
    }

    private static func decode(_ text: Substring) -> String? {
        String(text.replacingOccurrences(of: "+", with: " ")).removingPercentEncoding
    }

    /// A JSON object body; an empty body is an empty object (the SDK sends
    /// `Content-Type: application/json` with no body). Nil if not a JSON object.
    static func jsonObject(_ body: [UInt8]) -> [String: Any]? {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        return (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    /// The `iss` claim of a JWT, read without verifying it (to pick the project secret).
    static func unverifiedIssuer(_ jwt: String) -> String? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])),
              let claims = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { return nil }
        return claims["iss"] as? String
    }
}
