import Foundation
@testable import OTRouter
import OTSignaling
import Testing

/// The exposure limits read from the configuration file: defaults, values, and ranges.
@Suite struct ExposureConfigurationTests {
    func load(_ text: String) throws -> RouterConfiguration {
        let path = NSTemporaryDirectory() + "otkit-exposure-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try RouterConfiguration.load(file: path, environment: ["OTKIT_API_KEY": "1", "OTKIT_API_SECRET": "a"])
    }

    @Test func defaultsAndValuesFromTheFile() throws {
        let defaults = try load("{}")
        #expect(defaults.unauthenticatedTimeoutSeconds == 10 && defaults.maxUnauthenticatedSockets == 1000)
        #expect(defaults.maxProjectJWTLifetimeSeconds == 300)
        let set = try load(#"{"unauthenticatedTimeoutSeconds": 2, "maxUnauthenticatedSockets": 50, "maxProjectJWTLifetimeSeconds": 600}"#)
        #expect(set.unauthenticatedTimeoutSeconds == 2 && set.maxUnauthenticatedSockets == 50 && set.maxProjectJWTLifetimeSeconds == 600)
    }

    @Test(arguments: [
        (#"{"unauthenticatedTimeoutSeconds": 0}"#, "unauthenticatedTimeoutSeconds"),
        (#"{"maxUnauthenticatedSockets": -1}"#, "maxUnauthenticatedSockets"),
        (#"{"maxProjectJWTLifetimeSeconds": 31536000}"#, "maxProjectJWTLifetimeSeconds"),
    ])
    func outOfRangeValuesNameTheirField(text: String, field: String) {
        #expect { try load(text) } throws: { ($0 as? RouterConfigurationError)?.field == field }
    }
}
