import CLibWebSockets
import Glibc

/// Reads the parts of an HTTP request (or WebSocket upgrade) that lws has parsed for a
/// connection. Service thread only, and only while lws still holds the headers (in the
/// HTTP and FILTER_PROTOCOL_CONNECTION callbacks). Cost: one copy of each header.
enum RequestHeaders {
    /// Headers lws does not know by name but the router reads; lws stores these as
    /// "custom" headers, looked up one name at a time.
    static let customHeaderNames = ["x-opentok-auth", "x-tb-partner-auth", "x-request-id"]

    private static let methodTokens: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_PUT_URI, "PUT"),
        (WSI_TOKEN_PATCH_URI, "PATCH"), (WSI_TOKEN_DELETE_URI, "DELETE"),
        (WSI_TOKEN_OPTIONS_URI, "OPTIONS"), (WSI_TOKEN_HEAD_URI, "HEAD"),
    ]

    /// The request method and the raw request path (query removed).
    static func methodAndURI(_ wsi: OpaquePointer) -> (method: String, uri: String)? {
        for (token, method) in methodTokens where lws_hdr_total_length(wsi, token) > 0 {
            return (method, copy(wsi, token) ?? "/")
        }
        return nil
    }

    /// `//v2/x` → `/v2/x` (some SDKs join a base URL ending in `/` with a path starting with one).
    static func foldPath(_ path: String) -> String {
        guard path.hasPrefix("//") else { return path.isEmpty ? "/" : path }
        return "/" + path.drop { $0 == "/" }
    }

    /// The whole value of a known header, all fragments joined.
    static func copy(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            let copied = lws_hdr_copy(wsi, buffer.baseAddress, Int32(length + 1), token)
            guard copied >= 0 else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(copied)), as: UTF8.self)
        }
    }

    /// The query arguments in order, split at the first `=` and percent-decoded. lws hands
    /// each `&`-separated argument over as one fragment of WSI_TOKEN_HTTP_URI_ARGS, and has
    /// already decoded `%XX` in it (so decoding again would turn `%252B` into `+`).
    static func query(_ wsi: OpaquePointer) -> [(name: String, value: String)] {
        var arguments: [(name: String, value: String)] = []
        var index: Int32 = 0
        while true {
            let length = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            guard length > 0 else { break }
            let text: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
                let copied = lws_hdr_copy_fragment(wsi, buffer.baseAddress, Int32(length + 1), WSI_TOKEN_HTTP_URI_ARGS, index)
                guard copied >= 0 else { return nil }
                return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(copied)), as: UTF8.self)
            }
            guard let text else { break }
            if let equals = text.firstIndex(of: "=") {
                arguments.append((String(text[..<equals]), String(text[text.index(after: equals)...])))
            } else {
                arguments.append((text, ""))
            }
            index += 1
        }
        return arguments
    }

    /// Every header lws parsed, with lower-case names (`content-type`, `x-opentok-auth`...).
    static func all(_ wsi: OpaquePointer) -> [String: String] {
        var headers: [String: String] = [:]
        for raw in 0...WSI_TOKEN_X_AUTH_TOKEN.rawValue {
            let token = lws_token_indexes(rawValue: raw)
            guard lws_hdr_total_length(wsi, token) > 0, let name = lws_token_to_string(token) else { continue }
            let text = String(cString: UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
            // Header tokens read "content-type:"; method tokens ("get ") and pseudo-headers
            // (":path") are not headers.
            guard text.hasSuffix(":"), !text.hasPrefix(":") else { continue }
            if let value = copy(wsi, token) { headers[String(text.dropLast()).lowercased()] = value }
        }
        for name in customHeaderNames {
            let key = name + ":"
            let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
            guard length >= 0 else { continue }
            let value: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
                let copied = lws_hdr_custom_copy(wsi, buffer.baseAddress, Int32(length + 1), key, Int32(key.utf8.count))
                guard copied >= 0 else { return nil }
                return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(copied)), as: UTF8.self)
            }
            if let value { headers[name] = value }
        }
        return headers
    }

    /// The peer's address: `ip` (withPort false) or `ip:port`.
    static func peerAddress(_ wsi: OpaquePointer, withPort: Bool) -> String {
        let fd = lws_get_socket_fd(wsi)
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        guard ok else { return "" }
        return SocketAddressText.format(storage, withPort: withPort)
    }
}
