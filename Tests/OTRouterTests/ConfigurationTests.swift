import Foundation
@testable import OTRouter
import OTSignaling
import Testing

@Suite struct ConfigurationTests {
    func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "otkit-router-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func fileIsRead() throws {
        let path = try write("""
            {"host": "0.0.0.0", "port": 4000, "tls": {"certificate": "/c.pem", "privateKey": "/k.pem"}, "mediaHost": "10.0.0.2",
             "projects": [{"apiKey": "12345678", "apiSecret": "s3cret"}], "reconnectGraceSeconds": 10, "logLevel": "warning"}
            """)
        let configuration = try RouterConfiguration.load(file: path, environment: [:])
        #expect(configuration.host == "0.0.0.0" && configuration.port == 4000 && configuration.mediaHost == "10.0.0.2")
        #expect(configuration.tlsCertificatePath == "/c.pem" && configuration.tlsPrivateKeyPath == "/k.pem")
        #expect(configuration.projects == [ProjectCredentials(apiKey: "12345678", apiSecret: "s3cret")])
        #expect(configuration.reconnectGraceSeconds == 10 && configuration.silenceTimeoutSeconds == 5)
        #expect(configuration.maxConnectionsPerSession == 3000 && configuration.logLevel == .warning)
    }

    /// `"archiveDirectory"` sets where individual archives go; without it they go under the
    /// system's temporary directory; an empty one is refused by name.
    @Test func archiveDirectoryIsReadOrDefaults() throws {
        let set = try RouterConfiguration.load(file: try write(#"{"archiveDirectory": "/srv/archives", "projects": [{"apiKey": "1", "apiSecret": "a"}]}"#),
                                               environment: [:])
        #expect(set.archiveDirectory == "/srv/archives" && set.effectiveArchiveDirectory == "/srv/archives")
        let unset = try RouterConfiguration.load(file: nil, environment: ["OTKIT_API_KEY": "1", "OTKIT_API_SECRET": "a"])
        #expect(unset.archiveDirectory == nil && unset.effectiveArchiveDirectory.hasSuffix("/otkit-archives"))
        do {
            _ = try RouterConfiguration.load(file: try write(#"{"archiveDirectory": "", "projects": [{"apiKey": "1", "apiSecret": "a"}]}"#),
                                             environment: [:])
            Issue.record("accepted an empty archiveDirectory")
        } catch {
            #expect((error as? RouterConfigurationError)?.field == "archiveDirectory", "\(error)")
        }
    }

    @Test func environmentProjects() throws {
        let one = try RouterConfiguration.load(file: nil, environment: ["OTKIT_API_KEY": "1", "OTKIT_API_SECRET": "a"])
        #expect(one.projects == [ProjectCredentials(apiKey: "1", apiSecret: "a")])
        let two = try RouterConfiguration.load(file: nil, environment: ["OTKIT_PROJECTS": "1:a,2:b:c"])
        #expect(two.projects == [ProjectCredentials(apiKey: "1", apiSecret: "a"), ProjectCredentials(apiKey: "2", apiSecret: "b:c")])
    }

    @Test(arguments: [
        (#"{"projects": [{"apiKey": "1", "apiSecret": "key.pem"}]}"#, "projects[0].apiSecret"),
        (#"{"projects": [{"apiKey": "1", "apiSecret": ""}]}"#, "projects[0].apiSecret"),
        (#"{"projects": [{"apiKey": "1"}]}"#, "projects[0].apiSecret"),
        (#"{"port": "80", "projects": [{"apiKey": "1", "apiSecret": "a"}]}"#, "port"),
        (#"{"prot": 80}"#, "prot"),
        (#"{"logLevel": "loud", "projects": [{"apiKey": "1", "apiSecret": "a"}]}"#, "logLevel"),
        (#"{"tls": {"certificate": "/c"}, "projects": [{"apiKey": "1", "apiSecret": "a"}]}"#, "tls"),
        ("{}", "projects"),
        ("not json", "(file)"),
    ])
    func errorsNameTheFileAndField(text: String, field: String) throws {
        let path = try write(text)
        do {
            _ = try RouterConfiguration.load(file: path, environment: [:])
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.field == field, "\(error)")
            #expect(error.description.hasPrefix(path) || error.source == path)
        }
    }

    @Test func missingFileAndHalfEnvironment() {
        #expect(throws: RouterConfigurationError.self) { try RouterConfiguration.load(file: "/nonexistent/otkit.json", environment: [:]) }
        do {
            _ = try RouterConfiguration.load(file: nil, environment: ["OTKIT_API_KEY": "1"])
            Issue.record("accepted")
        } catch {
            #expect(error.field == "OTKIT_API_SECRET")
        }
    }

    @Test(arguments: [("abc.def", true), ("abc.", false), ("a.b_9", true), ("0123456789abcdef", false), ("x.y-z", false)])
    func vonageLookingSecrets(secret: String, refused: Bool) {
        #expect(RouterConfiguration.looksLikeKeyFile(secret) == refused)
    }
}
