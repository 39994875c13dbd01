/// Where a Redis server is: `redis://HOST:PORT[/DB]` (HOST a name, an IPv4 literal or a
/// bracketed IPv6 literal; PORT 1-65535, default 6379; DB 0-15, default 0). Passwords and
/// TLS (`rediss://`) are not supported yet and are refused with a message saying so.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The host name or IP literal (IPv6 without brackets).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The logical database selected after connecting.
    public var database: Int

    /// An endpoint with every field given.
    public init(host: String, port: Int = 6379, database: Int = 0) {
        self.host = host
        self.port = port
        self.database = database
    }

    /// Parses `redis://HOST:PORT[/DB]`. Cost: a scan of the text.
    /// - Throws: ``RedisEndpointError`` naming what is wrong.
    public init(url text: String) throws(RedisEndpointError) {
        guard text.utf8.count <= 1024 else { throw RedisEndpointError(text: String(text.prefix(64)) + "…", problem: "longer than 1024 bytes") }
        if text.hasPrefix("rediss://") { throw RedisEndpointError(text: text, problem: "TLS (rediss://) is not supported yet") }
        guard text.hasPrefix("redis://") else { throw RedisEndpointError(text: text, problem: "must start with redis://") }
        var rest = Substring(text.dropFirst("redis://".count))
        if rest.contains("@") { throw RedisEndpointError(text: text, problem: "user names and passwords are not supported yet") }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard path.utf8.count <= 2, path.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int(path), (0...15).contains(number) else {
                    throw RedisEndpointError(text: text, problem: "the database \"\(path)\" is not a number 0-15")
                }
                database = number
            }
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw RedisEndpointError(text: text, problem: "an IPv6 literal lacks its ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw RedisEndpointError(text: text, problem: "expected :PORT after the IPv6 literal") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw RedisEndpointError(text: text, problem: "no host") }
        guard host.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "/") }) else {
            throw RedisEndpointError(text: text, problem: "the host has a space, control or non-ASCII character")
        }
        var port = 6379
        if let portText {
            guard (1...5).contains(portText.utf8.count), portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let number = Int(portText), (1...65535).contains(number) else {
                throw RedisEndpointError(text: text, problem: "the port \"\(portText)\" is not a number 1-65535")
            }
            port = number
        }
        self.init(host: String(host), port: port, database: database)
    }

    /// `redis://host:port/db`.
    public var description: String {
        "redis://\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }
}

/// A `--redis` URL that cannot be used: the text and what is wrong with it.
public struct RedisEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL as given (cut at 64 characters when very long).
    public var text: String
    /// What is wrong, in a sentence.
    public var problem: String

    /// `"<text>: <problem>"`.
    public var description: String { "Redis URL \"\(text)\": \(problem) (expected redis://HOST:PORT[/DB])" }
}
