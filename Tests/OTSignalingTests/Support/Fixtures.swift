@testable import OTSignaling

/// The credentials and ids the server-SDK reference runs used (opentok-server-sdk.md).
enum Fixtures {
    static let credentials = ProjectCredentials(apiKey: "12345678", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    static let otherProject = ProjectCredentials(apiKey: "87654321", apiSecret: "fedcba9876543210fedcba9876543210fedcba98")
    /// `1~12345678~~1700000000000~0.123456~`, minted by the reference's recipe.
    static let sessionID = "1_MX4xMjM0NTY3OH5-MTcwMDAwMDAwMDAwMH4wLjEyMzQ1Nn4"
    /// A fixed clock: the reference runs' time.
    static let now: Int64 = 1_795_979_364

    static func session(for credentials: ProjectCredentials = credentials, random: String = "r1") throws -> String {
        try OpenTokSessionID.create(apiKey: credentials.apiKey, location: "", createTimeMilliseconds: 1_700_000_000_000,
                                    random: random).rawValue
    }
}
