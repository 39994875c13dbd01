import Foundation
import Glibc
import OTNet
import OTSignaling

/// `otkit archive start|stop|list|get|delete|streams|download`: a router's archives
/// through its OpenTok-shaped REST API (`/v2/project/{apiKey}/archive…`), authenticated
/// with a project JWT as the server SDKs do, so a recording needs no code. Prints the
/// router's JSON; `download` writes the archive's file.
enum ArchiveCommand {
    static let help = """
        usage: otkit archive <action> --router URL --api-key K --api-secret S [options]

        actions:
          start     --session ID [--name N] [--output-mode composed|individual]
                    [--stream-mode auto|manual] [--no-audio | --no-video]
                    [--multi-archive-tag T] [--max-duration SECONDS] [--resolution WxH]
          stop      --id ARCHIVE
          get       --id ARCHIVE
          list      [--session ID] [--offset N] [--count N]
          delete    --id ARCHIVE
          streams   --id ARCHIVE (--add STREAM [--no-audio | --no-video] | --remove STREAM)
                    (archives started with --stream-mode manual)
          download  --id ARCHIVE --out FILE [--wait SECONDS]
                    waits (default 30 s) until the archive is available, then fetches its
                    signed url (an individual archive is a ZIP of WebM files + manifest.json)

        start, stop and get print the archive's JSON; list prints {"count","items"}; delete
        and streams print nothing. The key and secret may come from OTKIT_API_KEY and
        OTKIT_API_SECRET instead (`ps` shows flags to everyone on the machine).
        Exit codes: 0 ok, 1 the router refused or failed (its message is printed), 2 usage.
        """

    private static let valued: Set<String> = [
        "router", "api-key", "api-secret", "session", "name", "output-mode", "stream-mode", "multi-archive-tag",
        "max-duration", "resolution", "id", "offset", "count", "add", "remove", "out", "wait",
    ]

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        guard let action = words.first, !action.hasPrefix("--") else {
            if words.contains("--help") { print(help); return 0 }
            throw Arguments.UsageError(description: "otkit archive needs an action: start, stop, get, list, delete, streams or download")
        }
        let args = try Arguments(words.dropFirst(), valued: valued, flags: ["no-audio", "no-video", "help"])
        if args.flags.contains("help") { print(help); return 0 }
        let client = try ArchiveClient(args)
        switch action {
        case "start": return try start(args, client)
        case "stop": return try client.print("POST", "/archive/\(try id(args))/stop")
        case "get": return try client.print("GET", "/archive/\(try id(args))")
        case "list": return try list(args, client)
        case "delete": return try client.print("DELETE", "/archive/\(try id(args))")
        case "streams": return try streams(args, client)
        case "download": return try download(args, client)
        default:
            throw Arguments.UsageError(description: "unknown action '\(action)': start, stop, get, list, delete, streams or download")
        }
    }

    private static func id(_ args: Arguments) throws -> String {
        guard let id = args.options["id"], !id.isEmpty, id.utf8.count <= 256,
              id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw Arguments.UsageError(description: "--id ARCHIVE is required (the \"id\" that `otkit archive start` or `list` prints)")
        }
        return id
    }

    private static func start(_ args: Arguments, _ client: ArchiveClient) throws -> Int32 {
        guard let session = args.options["session"] else { throw Arguments.UsageError(description: "start needs --session ID") }
        var fields: [String: Any] = ["sessionId": session, "hasAudio": !args.flags.contains("no-audio"),
                                     "hasVideo": !args.flags.contains("no-video")]
        if args.flags.contains("no-audio") && args.flags.contains("no-video") {
            throw Arguments.UsageError(description: "--no-audio and --no-video together would record nothing")
        }
        if let name = args.options["name"] { fields["name"] = name }
        for (option, field, allowed) in [("output-mode", "outputMode", ["composed", "individual"]),
                                         ("stream-mode", "streamMode", ["auto", "manual"])] {
            guard let value = args.options[option] else { continue }
            guard allowed.contains(value) else {
                throw Arguments.UsageError(description: "--\(option) must be \(allowed.joined(separator: " or ")), not '\(value)'")
            }
            fields[field] = value
        }
        if let tag = args.options["multi-archive-tag"] { fields["multiArchiveTag"] = tag }
        if args.options["max-duration"] != nil { fields["maxDuration"] = try args.int("max-duration", default: 0, range: 60...36_000) }
        if let resolution = args.options["resolution"] {
            _ = try args.size("resolution", default: (0, 0))
            fields["resolution"] = resolution
        }
        return try client.print("POST", "/archive", json: fields)
    }

    private static func list(_ args: Arguments, _ client: ArchiveClient) throws -> Int32 {
        var query: [String] = []
        if args.options["offset"] != nil { query.append("offset=\(try args.int("offset", default: 0, range: 0...1_000_000))") }
        if args.options["count"] != nil { query.append("count=\(try args.int("count", default: 50, range: 0...1000))") }
        if let session = args.options["session"] {
            guard let encoded = session.addingPercentEncoding(withAllowedCharacters: .alphanumerics) else {
                throw Arguments.UsageError(description: "--session cannot be encoded")
            }
            query.append("sessionId=\(encoded)")
        }
        return try client.print("GET", "/archive" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    private static func streams(_ args: Arguments, _ client: ArchiveClient) throws -> Int32 {
        let archive = try id(args)
        let fields: [String: Any]
        switch (args.options["add"], args.options["remove"]) {
        case (let add?, nil):
            fields = ["addStream": add, "hasAudio": !args.flags.contains("no-audio"), "hasVideo": !args.flags.contains("no-video")]
        case (nil, let remove?):
            fields = ["removeStream": remove]
        default:
            throw Arguments.UsageError(description: "streams needs one of --add STREAM or --remove STREAM")
        }
        return try client.print("PATCH", "/archive/\(archive)/streams", json: fields)
    }

    private static func download(_ args: Arguments, _ client: ArchiveClient) throws -> Int32 {
        let archive = try id(args)
        guard let out = args.options["out"], !out.isEmpty else { throw Arguments.UsageError(description: "download needs --out FILE") }
        let wait = try args.int("wait", default: 30, range: 0...86_400)
        let deadline = Date().addingTimeInterval(Double(wait))
        var body: [String: Any]
        while true {
            body = try client.object("GET", "/archive/\(archive)")
            let status = body["status"] as? String ?? "?"
            if status == "available" { break }
            if status == "failed" || status == "expired" || status == "deleted" {
                throw CommandError("archive \(archive) is \(status): \(body["reason"] as? String ?? "no reason given")")
            }
            guard Date() < deadline else {
                throw CommandError("archive \(archive) is still \(status) after \(wait) s (stop it first; try a longer --wait)")
            }
            usleep(250_000)
        }
        guard let url = body["url"] as? String, url.hasPrefix("http://") else {
            throw CommandError("archive \(archive) is available but has no http:// url (this client speaks no TLS): \(body["url"] ?? "null")")
        }
        let response: (status: Int, headers: [String: String], body: [UInt8])
        do {
            response = try HTTPClient.request("GET", url, timeoutSeconds: 120)
        } catch {
            throw CommandError("cannot fetch \(url): \(error)")
        }
        guard response.status == 200 else {
            throw CommandError("the archive link answered HTTP \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
        guard FileManager.default.createFile(atPath: out, contents: Data(response.body)) else {
            throw CommandError("cannot write \(out): \(String(cString: strerror(errno)))")
        }
        print("wrote \(out) (\(response.body.count) bytes)")
        return 0
    }
}
