/// The parts of an `http://`, `https://`, `ws://` or `wss://` URL that a connection needs.
struct WebURL: Equatable {
    var scheme: String
    var host: String
    var port: Int
    /// The path and query, starting with `/`.
    var target: String

    /// The URL's scheme is one of the secure ones.
    var isSecure: Bool { scheme == "https" || scheme == "wss" }

    /// `host:port` for the Host header (`[v6]:port` for IPv6 literals).
    var hostHeader: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `text`; nil when the scheme is not one of `schemes` or the authority is bad.
    init?(_ text: String, schemes: Set<String>) {
        guard let separator = text.range(of: "://") else { return nil }
        scheme = text[..<separator.lowerBound].lowercased()
        guard schemes.contains(scheme) else { return nil }
        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let remainder = String(rest[authorityEnd...])
        target = remainder.isEmpty ? "/" : (remainder.hasPrefix("?") ? "/" + remainder : remainder)
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { return nil }
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else { return nil }
            port = value
        } else {
            port = (scheme == "https" || scheme == "wss") ? 443 : 80
        }
    }
}
