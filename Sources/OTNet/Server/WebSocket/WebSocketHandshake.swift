import CSSL
import Foundation

/// The server's half of the WebSocket opening handshake (RFC 6455 §4.2): decides whether
/// a request asks for an upgrade, checks it, and computes `Sec-WebSocket-Accept`. No
/// subprotocol and no extension is negotiated (OTNet's clients ask for none; a client
/// that offers some gets a connection without them, as §4.2.2 allows).
/// Cost: one SHA-1 and one base64 per upgrade.
enum WebSocketHandshake {
    /// The GUID §1.3 appends to the key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// What to do with a request.
    enum Verdict: Equatable {
        /// Not an upgrade request: plain HTTP.
        case notUpgrade
        /// A valid upgrade: answer 101 with this `Sec-WebSocket-Accept`.
        case upgrade(accept: String)
        /// A broken upgrade: answer with this status (and headers) and close.
        case refuse(status: Int, message: String, headers: [String: String])
    }

    /// Judges a request by its method, version and lower-case header map.
    static func judge(method: String, version: String, headers: [String: String]) -> Verdict {
        guard let upgrade = headers["upgrade"], tokens(upgrade).contains("websocket") else { return .notUpgrade }
        guard method == "GET", version == "HTTP/1.1" else {
            return .refuse(status: 400, message: "a WebSocket upgrade must be GET over HTTP/1.1", headers: [:])
        }
        guard let connection = headers["connection"], tokens(connection).contains("upgrade") else {
            return .refuse(status: 400, message: "Connection: Upgrade missing", headers: [:])
        }
        guard headers["sec-websocket-version"]?.trimmingCharacters(in: .whitespaces) == "13" else {
            return .refuse(status: 426, message: "unsupported WebSocket version", headers: ["Sec-WebSocket-Version": "13"])
        }
        guard let key = headers["sec-websocket-key"]?.trimmingCharacters(in: .whitespaces), isValidKey(key) else {
            return .refuse(status: 400, message: "bad Sec-WebSocket-Key", headers: [:])
        }
        return .upgrade(accept: acceptValue(forKey: key))
    }

    /// §4.2.1: the key is the base64 of 16 bytes (24 characters).
    static func isValidKey(_ key: String) -> Bool {
        key.utf8.count == 24 && Data(base64Encoded: key)?.count == 16
    }

    /// §4.2.2: base64(SHA-1(key + GUID)).
    static func acceptValue(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        input.withUnsafeBufferPointer { source in
            digest.withUnsafeMutableBufferPointer { cssl_sha1(source.baseAddress, source.count, $0.baseAddress) }
        }
        return Data(digest).base64EncodedString()
    }

    /// The comma-separated tokens of a header value, trimmed and lower-cased.
    static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}
