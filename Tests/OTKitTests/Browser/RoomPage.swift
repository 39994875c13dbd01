import Foundation
import OTRouter
import OTTestSupport
import Testing

/// The room page (`/room/{sessionId}`, web/room.html + web/room.js) in a Chromium tab,
/// read through its `window.room` object and its DOM, as a person would see it.
struct RoomPage {
    let page: ChromiumPage

    /// Opens `router`'s room page of `sessionId` in a new tab of `browser`; `query` (e.g.
    /// `?token=…`) is appended as given.
    init(_ browser: ChromiumBrowser, _ router: Router, _ sessionId: String, query: String = "") throws {
        page = try browser.openPage()
        try page.navigate("\(router.baseURL)/room/\(sessionId)\(query)")
    }

    /// `text` percent-encoded for a query value (a T1 token holds `+`, `/` and `=`).
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? text
    }

    /// Waits until the page published (its Publisher has a stream) and returns the stream id.
    func publishedStreamId(timeout: Double = 45) throws -> String {
        try page.waitFor("window.room && room.publisher && room.publisher.stream", timeout: timeout, what: "the room page to publish")
        return try page.evaluate("room.publisher.stream.streamId", as: String.self)
    }

    /// The page's own connection id (once connected).
    func connectionId() throws -> String {
        try page.waitFor("window.room && room.session && room.session.connection", what: "the room page to connect")
        return try page.evaluate("room.session.connection.connectionId", as: String.self)
    }

    /// framesDecoded of the page's subscriber to `streamId` (OpenTok.js getStats), -1 without one.
    func framesDecoded(_ streamId: String) throws -> Int {
        try page.evaluate("""
            (async () => { const s = room.subscribers.get(\(json(streamId))); if (!s) return -1;
              const stats = await s.getStats(); return stats.video.framesDecoded; })()
            """, as: Int.self)
    }

    /// The error the page shows: `{code, name, message}` from `room.error`, plus whether the
    /// alert line is visible and its text; nil while it shows none.
    func shownError() throws -> ShownError? {
        try page.evaluate("""
            window.room && room.error ? {code: room.error.code, name: room.error.name, message: room.error.message,
              visible: !document.getElementById('error').hidden, text: document.getElementById('error').textContent} : null
            """, as: ShownError?.self)
    }

    struct ShownError: Decodable {
        let code: Int
        let name: String
        let message: String
        let visible: Bool
        let text: String
    }

    /// A JavaScript string literal of `text`.
    func json(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: .fragmentsAllowed), as: UTF8.self)
    }

    func close() { page.close() }
}
