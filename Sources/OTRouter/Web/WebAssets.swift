import Foundation
import OTNet

/// The files the router serves to browsers without authentication: `GET /otkit.js` (and
/// HEAD), the JavaScript client, from the copy embedded at build time (`OTKitJS.swift`,
/// generated from `web/otkit.js` by `scripts/embed-web`), so it needs no file at run time.
///
/// Headers: `text/javascript; charset=utf-8`; `Cache-Control: no-cache` with a strong
/// `ETag` (the browser revalidates each load and gets a bodiless 304 while the file is
/// unchanged, so a router upgrade is picked up at once); `Access-Control-Allow-Origin: *`
/// because apps load it as a module from their own origin, as they load OpenTok.js from
/// a CDN (the file holds no secret; the WebSocket it opens needs a token);
/// `X-Content-Type-Options: nosniff`.
enum WebAssets {
    /// The `ETag` of ``otkitJS``: FNV-1a 64 of its bytes, computed once.
    static let otkitJSTag: String = {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in otkitJS.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"otkit-js-" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }()

    /// The response for `request` if it asks for a web asset, else nil (the REST API's turn).
    /// Cost: a path comparison; a hit copies the 35 KB body (or none for a 304).
    static func response(to request: HTTPRequest) -> HTTPResponse? {
        guard request.path == "/otkit.js", request.method == "GET" || request.method == "HEAD" else { return nil }
        let headers = [
            "Cache-Control": "no-cache",
            "ETag": otkitJSTag,
            "Access-Control-Allow-Origin": "*",
            "X-Content-Type-Options": "nosniff",
        ]
        if let tags = request.headers["if-none-match"], matches(tags, otkitJSTag) {
            return HTTPResponse(status: 304, contentType: nil, headers: headers)
        }
        return HTTPResponse(status: 200, contentType: "text/javascript; charset=utf-8", headers: headers,
                            body: Array(otkitJS.utf8))
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
