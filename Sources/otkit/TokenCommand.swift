import OTSignaling

/// `otkit token`: creates a routed session on a router and/or a token for a session,
/// for scripts (`eval "$(otkit token …)"`) and for people trying OTKit by hand.
enum TokenCommand {
    static let help = """
        usage: otkit token --router URL --api-key K --api-secret S [--session ID]
                           [--role publisher|subscriber|moderator|publisheronly]
                           [--expire SECONDS] [--data TEXT] [--json]

        Without --session, creates a routed session through the router's REST API. Prints
        OTKIT_SESSION=… and OTKIT_TOKEN=… lines (shell syntax), or one JSON object with --json.
        The key and secret may come from OTKIT_API_KEY and OTKIT_API_SECRET instead (`ps`
        shows flags to everyone on the machine).

          --role R         the token's role (default publisher)
          --expire S       seconds until the token expires, 1 to 2592000 (30 days; default 86400)
          --data TEXT      connection data the other clients see (up to 1000 characters)
          --json           {"sessionId":…,"token":…,"apiKey":…,"router":…}
        """

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: ["router", "session", "api-key", "api-secret", "role", "expire", "data"], flags: ["json", "help"])
        if args.flags.contains("help") { print(help); return 0 }
        let roleName = args.options["role"] ?? "publisher"
        guard let role = Role(rawValue: roleName) else {
            throw Arguments.UsageError(description: "--role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", ")), not '\(roleName)'")
        }
        let expire = try args.int("expire", default: 86_400, range: 1...2_592_000)
        if let data = args.options["data"], data.unicodeScalars.count > OpenTokToken.maximumConnectionDataLength {
            throw Arguments.UsageError(description: "--data is \(data.unicodeScalars.count) characters; the limit is \(OpenTokToken.maximumConnectionDataLength)")
        }
        if args.options["token"] != nil { throw Arguments.UsageError(description: "otkit token makes tokens; it takes no --token") }
        let options = try SessionOptions(args)
        guard let credentials = options.credentials else {
            throw Arguments.UsageError(description: "otkit token needs --api-key and --api-secret (or OTKIT_API_KEY and OTKIT_API_SECRET)")
        }
        let token: String
        do {
            token = try OpenTokToken.generate(sessionID: options.sessionId, credentials: credentials, role: role,
                                              expireTime: UnixTime.now() + Int64(expire), connectionData: args.options["data"])
        } catch {
            throw CommandError("cannot make the token: \(error)")
        }
        if args.flags.contains("json") {
            print("{\"sessionId\":\(Reporter.quoted(options.sessionId)),\"token\":\(Reporter.quoted(token)),"
                + "\"apiKey\":\(Reporter.quoted(credentials.apiKey)),\"router\":\(Reporter.quoted(options.routerURL))}")
        } else {
            print("OTKIT_SESSION=\(options.sessionId)")
            print("OTKIT_TOKEN=\(token)")
        }
        return 0
    }
}
