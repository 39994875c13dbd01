import Foundation
import OTNet
import OTRouter
import OTSignaling
import Testing

/// The router serves the JavaScript client at `/otkit.js` from the copy embedded at build
/// time: byte for byte web/otkit.js (the source of truth; `scripts/embed-web` regenerates
/// the copy), without authentication, with headers a browser can cache and revalidate and
/// load as a cross-origin module.
@Suite struct OTKitJSRouteTests {
    static let project = ProjectCredentials(apiKey: "4817", apiSecret: "0123456789abcdef0123456789abcdef01234817")

    /// web/otkit.js in this checkout.
    static var sourceFile: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("web/otkit.js")
    }

    func service() throws -> Router {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        return try Router(configuration: configuration)
    }

    @Test func servesWebOTKitJSByteForByte() throws {
        let router = try service()
        defer { router.stop() }
        let source = try Data(contentsOf: Self.sourceFile)
        #expect(source.count > 10_000, "web/otkit.js should be the whole client")
        let response = router.service.handle(HTTPRequest(method: "GET", path: "/otkit.js"))
        #expect(response.status == 200)
        #expect(response.contentType == "text/javascript; charset=utf-8")
        #expect(response.body == Array(source),
                "the embedded copy differs from web/otkit.js: run scripts/embed-web (\(response.body.count) vs \(source.count) bytes)")
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(response.headers["Access-Control-Allow-Origin"] == "*")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        let tag = try #require(response.headers["ETag"])
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
        // HEAD answers the same headers (the server leaves the body out).
        let head = router.service.handle(HTTPRequest(method: "HEAD", path: "/otkit.js"))
        #expect(head.status == 200 && head.headers["ETag"] == tag)
    }

    @Test func revalidationWithTheETagGetsA304WithoutBody() throws {
        let router = try service()
        defer { router.stop() }
        let tag = try #require(router.service.handle(HTTPRequest(method: "GET", path: "/otkit.js")).headers["ETag"])
        for header in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
            let response = router.service.handle(HTTPRequest(method: "GET", path: "/otkit.js", headers: ["if-none-match": header]))
            #expect(response.status == 304, "If-None-Match: \(header)")
            #expect(response.body.isEmpty)
            #expect(response.headers["ETag"] == tag)
        }
        let stale = router.service.handle(HTTPRequest(method: "GET", path: "/otkit.js", headers: ["if-none-match": "\"otkit-js-0\""]))
        #expect(stale.status == 200 && !stale.body.isEmpty)
    }

    @Test func onlyGetAndHeadOfThatPathAreTheAsset() throws {
        let router = try service()
        defer { router.stop() }
        for (method, path) in [("POST", "/otkit.js"), ("DELETE", "/otkit.js"), ("GET", "/otkit.js/x"), ("GET", "/web/otkit.js"),
                               ("GET", "/../web/otkit.js")] {
            let response = router.service.handle(HTTPRequest(method: method, path: path))
            #expect(response.status == 404, "\(method) \(path) answered \(response.status)")
            #expect(response.contentType != "text/javascript; charset=utf-8")
        }
    }
}
