import Foundation
import OTRouter
import OTSignaling
import OTTestSupport
import Testing

/// Bad arguments give one clear line on standard error (what is wrong, what would be
/// right) and exit code 2 (usage) or 1 (a runtime refusal), never a crash or a hang.
struct BadArgumentTests {
    static let project = ProjectCredentials(apiKey: "6607", apiSecret: "6607aa11bb22cc33dd44ee55ff6677889900aabb")
    static let session = (try? OpenTokSessionID.create(apiKey: "6607", location: "", createTimeMilliseconds: 1_700_000_000_000, random: "abc").rawValue) ?? ""

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let arguments: [String]
        let status: Int32
        let mentions: String
        var testDescription: String { name }
    }

    static func token() -> String {
        (try? OpenTokToken.generate(sessionID: session, credentials: project)) ?? "T1==invalid"
    }

    static let tok: String = token()

    static let cases: [Case] = [
        Case(name: "unknown option", arguments: ["publish", "--colour", "red"], status: 2, mentions: "unknown option --colour"),
        Case(name: "unknown command", arguments: ["broadcast"], status: 2, mentions: "unknown command"),
        Case(name: "unknown camera", arguments: ["publish", "--router", "http://127.0.0.1:9", "--session", session, "--token", tok,
                                                 "--camera", "/dev/video-none", "--no-audio"], status: 2, mentions: "no camera at /dev/video-none"),
        Case(name: "unreadable file", arguments: ["publish", "--router", "http://127.0.0.1:9", "--session", session, "--token", tok,
                                                  "--file", "/nonexistent/clip.y4m", "--no-audio"], status: 2, mentions: "cannot read --file"),
        Case(name: "bad URL", arguments: ["publish", "--router", "router.example:8080", "--session", session, "--token", tok,
                                          "--test-pattern"], status: 2, mentions: "is not a URL"),
        Case(name: "malformed token", arguments: ["publish", "--router", "http://127.0.0.1:9", "--session", session, "--token", "hello",
                                                  "--test-pattern"], status: 2, mentions: "is not an OpenTok token"),
        Case(name: "bad session id", arguments: ["subscribe", "--router", "http://127.0.0.1:9", "--session", "nope", "--token", tok],
             status: 2, mentions: "is not an OpenTok session id"),
        Case(name: "bad resolution", arguments: ["publish", "--resolution", "big"], status: 2, mentions: "WIDTHxHEIGHT"),
        Case(name: "unknown role", arguments: ["token", "--role", "king"], status: 2, mentions: "--role must be one of"),
        Case(name: "unknown microphone", arguments: ["publish", "--router", "http://127.0.0.1:9", "--session", session, "--token", tok,
                                                     "--test-pattern", "--mic", "hw:97,0"], status: 1, mentions: "cannot open microphone hw:97,0"),
    ]

    @Test(arguments: cases)
    func oneClearLineAndTheExitCode(_ c: Case) throws {
        let result = try Subprocess.run(OtkitBinary.path, c.arguments, timeoutSeconds: 30)
        #expect(result.status == c.status, "\(result)")
        #expect(!result.timedOut)
        let errorLines: [Substring] = result.stderr.split(separator: "\n")
        if c.name != "unknown command" { #expect(errorLines.count == 1, "one line: \(result.stderr)") }
        let first: String = errorLines.first.map(String.init) ?? ""
        #expect(first.hasPrefix("otkit: "), "\(result.stderr)")
        #expect(result.stderr.contains(c.mentions), "\(result.stderr)")
    }

    /// A well-formed token signed with the wrong secret: the router refuses it (1004) and
    /// the publisher exits 1 at once instead of retrying forever.
    @Test func tokenTheRouterRefusesExitsOne() throws {
        var configuration = RouterConfiguration()
        configuration.projects = [Self.project]
        configuration.logLevel = .error
        let router = try Router(configuration: configuration)
        defer { router.stop() }
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)
        let forged = try OpenTokToken.generate(sessionID: sessionId, credentials: ProjectCredentials(apiKey: Self.project.apiKey, apiSecret: "not-the-secret-at-all-0123456789"))
        let result = try Subprocess.run(OtkitBinary.path, ["publish", "--router", router.baseURL, "--session", sessionId, "--token", forged,
                                                           "--test-pattern", "--no-audio", "--resolution", "160x120"], timeoutSeconds: 60)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("refused the token"), "\(result.stderr)")
    }

    /// `--help` works on every subcommand and exits 0.
    @Test(arguments: ["demo", "devices", "router", "token", "publish", "subscribe", "archive"])
    func helpOnEverySubcommand(_ command: String) throws {
        let result = try Subprocess.run(OtkitBinary.path, [command, "--help"], timeoutSeconds: 30)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("usage: otkit \(command)"), "\(result.stdout)")
    }
}
