import Foundation
import OTSignaling
import OTTestSupport
import Testing

/// `--show` on a machine without a display (DISPLAY empty): `otkit subscribe` and
/// `otkit demo` refuse at once with one line saying why and exit 1, before connecting,
/// instead of running without the window that was asked for.
struct ShowWithoutDisplayTests {
    static let project = ProjectCredentials(apiKey: "6615", apiSecret: "6615aa11bb22cc33dd44ee55ff6677889900aabb")

    @Test func subscribeAndDemoRefuseShowWithoutADisplay() throws {
        let session = try OpenTokSessionID.create(apiKey: "6615", location: "", createTimeMilliseconds: 1_700_000_000_000, random: "v15").rawValue
        let token = try OpenTokToken.generate(sessionID: session, credentials: Self.project)
        let runs = [["subscribe", "--router", "http://127.0.0.1:9", "--session", session, "--token", token, "--show"],
                    ["demo", "--seconds", "1", "--show"]]
        for arguments in runs {
            let result = try Subprocess.run(OtkitBinary.path, arguments, environment: ["DISPLAY": ""], timeoutSeconds: 30)
            #expect(result.status == 1 && !result.timedOut, "\(arguments[0]): \(result)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("otkit: --show: no display: DISPLAY is not set"), "\(arguments[0]): \(result.stderr)")
            #expect(!result.stdout.contains("connected"), "\(arguments[0]) did not connect: \(result.stdout)")
        }
    }
}
