import Foundation
import OTNet

/// The files the router serves to browsers without authentication, from copies embedded
/// at build time (generated from `web/` by `scripts/embed-web`), so it needs no file at
/// run time: `GET /otkit.js` (and HEAD), the JavaScript client (`OTKitJS.swift`); the room
/// page `GET /room/{sessionId}` (`RoomHTML.swift`, the same page for every id: its script
/// reads the id from the address) and its module `GET /room.js` (`RoomJS.swift`).
///
/// Headers: `Cache-Control: no-cache` with a strong `ETag` (the browser revalidates each
/// load and gets a bodiless 304 while the file is unchanged, so a router upgrade is picked
/// up at once); `X-Content-Type-Options: nosniff`. otkit.js adds
/// `Access-Control-Allow-Origin: *` because apps load it as a module from their own
/// origin, as they load OpenTok.js from a CDN (the file holds no secret; the WebSocket it
/// opens needs a token). The room page's address may hold a token, so the page adds
/// `Referrer-Policy: no-referrer` and a `Content-Security-Policy` allowing only the
/// router's own scripts and sockets.
enum WebAssets {
    /// One embedded file: its body, content type, ETag and extra headers.
    struct Asset: Sendable {
        let body: String
        let contentType: String
        let tag: String
        let headers: [String: String]

        init(_ body: String, _ contentType: String, _ name: String, headers: [String: String] = [:]) {
            self.body = body
            self.contentType = contentType
            tag = WebAssets.entityTag(name, body)
            self.headers = headers
        }
    }

    static let otkit = Asset(otkitJS, "text/javascript; charset=utf-8", "otkit-js", headers: ["Access-Control-Allow-Origin": "*"])
    static let roomModule = Asset(roomJS, "text/javascript; charset=utf-8", "room-js")
    static let roomPage = Asset(roomHTML, "text/html; charset=utf-8", "room-html", headers: [
        "Referrer-Policy": "no-referrer",
        "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            + "connect-src 'self' ws: wss:; media-src 'self' blob:; img-src 'self' data:; frame-ancestors 'none'",
    ])

    /// `"<name>-<FNV-1a 64 of body in hex>"`, quoted.
    static func entityTag(_ name: String, _ body: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"\(name)-" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// The asset `path` names: `/otkit.js`, `/room.js`, or `/room/{sessionId}` (one
    /// non-empty segment after `/room/`), else nil.
    static func asset(at path: String) -> Asset? {
        switch path {
        case "/otkit.js": return otkit
        case "/room.js": return roomModule
        default:
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].isEmpty, parts[1] == "room", !parts[2].isEmpty else { return nil }
            return roomPage
        }
    }

    /// The response for `request` if it asks for a web asset, else nil (the REST API's turn).
    /// Cost: a few path comparisons; a hit copies the body (35 KB for otkit.js) or none for a 304.
    static func response(to request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD", let asset = asset(at: request.path) else { return nil }
        var headers = asset.headers
        headers["Cache-Control"] = "no-cache"
        headers["ETag"] = asset.tag
        headers["X-Content-Type-Options"] = "nosniff"
        if let tags = request.headers["if-none-match"], matches(tags, asset.tag) {
            return HTTPResponse(status: 304, contentType: nil, headers: headers)
        }
        return HTTPResponse(status: 200, contentType: asset.contentType, headers: headers, body: Array(asset.body.utf8))
    }

    /// Whether an `If-None-Match` value (`"a", W/"b"` or `*`) names `tag` (weak comparison,
    /// as RFC 9110 §13.1.2 asks for If-None-Match).
    static func matches(_ header: String, _ tag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var value = candidate.trimmingCharacters(in: .whitespaces)
            if value == "*" { return true }
            if value.hasPrefix("W/") { value.removeFirst(2) }
            return value == tag
        }
    }
}
