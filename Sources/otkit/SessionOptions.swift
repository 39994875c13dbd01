import Glibc
import OTSignaling

/// Where and as whom `publish`, `subscribe` and `token` join: the router URL, the
/// session id, the API key, and a token (given, or made from the project's secret).
///
/// Accepted: `--router URL` (http://, https://, ws://, wss://); `--session ID`;
/// `--token T`, or `--api-key K` + `--api-secret S` (also from `OTKIT_API_KEY` /
/// `OTKIT_API_SECRET`, which `ps` does not show) to make tokens and, without
/// `--session`, to create a routed session through the router's REST API.
struct SessionOptions {
    /// The option names this parser reads (for `Arguments`).
    static let valued: Set<String> = ["router", "session", "token", "api-key", "api-secret"]

    /// The router's base URL.
    var routerURL: String
    /// The session to join.
    var sessionId: String
    /// The project's API key (from `--api-key` or read from the session id).
    var apiKey: String
    /// The project credentials when a secret was given (tokens can be re-made).
    var credentials: ProjectCredentials?
    /// The token given with `--token`, if any.
    var givenToken: String?
    /// True when this process created the session.
    var createdSession = false

    /// Parses and checks the options; creates the session when asked to. Usage errors
    /// throw `Arguments.UsageError`; a router that refuses throws `CommandError`.
    init(_ args: Arguments) throws {
        guard let router = args.options["router"] else {
            throw Arguments.UsageError(description: "--router URL is required, e.g. --router http://127.0.0.1:8080 (the URL `otkit router` prints)")
        }
        routerURL = try Self.checkedURL(router)
        let environment = { (name: String) -> String? in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let key = args.options["api-key"] ?? environment("OTKIT_API_KEY")
        let secret = args.options["api-secret"] ?? environment("OTKIT_API_SECRET")
        if (key == nil) != (secret == nil) {
            throw Arguments.UsageError(description: "--api-key and --api-secret go together (or OTKIT_API_KEY and OTKIT_API_SECRET)")
        }
        if let key, let secret {
            guard !key.isEmpty, !secret.isEmpty else { throw Arguments.UsageError(description: "--api-key and --api-secret must not be empty") }
            credentials = ProjectCredentials(apiKey: key, apiSecret: secret)
        }
        givenToken = args.options["token"]
        if let token = givenToken, !Self.looksLikeToken(token) {
            throw Arguments.UsageError(description: "--token is not an OpenTok token (a T1==… string or a JWT, as `otkit token` prints)")
        }
        if givenToken == nil && credentials == nil {
            throw Arguments.UsageError(description: "give --token T (with --session), or --api-key and --api-secret to make tokens")
        }
        if let session = args.options["session"] {
            guard let parsed = try? OpenTokSessionID(parsing: session) else {
                throw Arguments.UsageError(description: "--session '\(session.prefix(40))' is not an OpenTok session id (e.g. 2_MX40NzEz…, as `otkit token` prints)")
            }
            if let credentials, credentials.apiKey != parsed.apiKey {
                throw Arguments.UsageError(description: "--session belongs to API key \(parsed.apiKey), not --api-key \(credentials.apiKey)")
            }
            sessionId = session
            apiKey = parsed.apiKey
        } else {
            guard let credentials else {
                throw Arguments.UsageError(description: "--session ID is required with --token (or give --api-key/--api-secret to create a session)")
            }
            sessionId = try RouterClient.createSession(routerURL: routerURL, credentials: credentials)
            apiKey = credentials.apiKey
            createdSession = true
        }
    }

    /// A token to connect with: the given one, or a fresh one from the credentials.
    func token(role: Role, data: String?) throws -> String {
        if let givenToken { return givenToken }
        guard let credentials else { throw CommandError("no token and no API secret to make one") }
        do {
            return try OpenTokToken.generate(sessionID: sessionId, credentials: credentials, role: role, connectionData: data)
        } catch {
            throw CommandError("cannot make a token: \(error)")
        }
    }

    /// `text` if it is an http(s)/ws(s) URL with a host; a usage error saying so otherwise.
    static func checkedURL(_ text: String) throws -> String {
        let schemes = ["http://", "https://", "ws://", "wss://"]
        guard let scheme = schemes.first(where: { text.lowercased().hasPrefix($0) }) else {
            throw Arguments.UsageError(description: "--router '\(text)' is not a URL; give http://HOST:PORT (or https://, ws://, wss://), as `otkit router` prints")
        }
        let rest = text.dropFirst(scheme.count)
        let hostPort = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var host = Substring(hostPort)
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
            guard let port = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(port) else {
                throw Arguments.UsageError(description: "--router '\(text)' has a bad port; give http://HOST:PORT with PORT 1-65535")
            }
            host = hostPort[..<colon]
        }
        guard !host.isEmpty else { throw Arguments.UsageError(description: "--router '\(text)' has no host; give http://HOST:PORT") }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }

    /// T1 tokens start with `T1==`; JWT tokens are three base64url parts.
    static func looksLikeToken(_ token: String) -> Bool {
        if token.hasPrefix("T1==") { return token.count > 8 }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(alphabet.contains) }
    }
}

/// A runtime failure of a command (exit code 1), with a one-line description.
struct CommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
