/// An OpenTok project's API key and secret: what signs and verifies its connection
/// tokens (T1: HMAC-SHA1, JWT: HMAC-SHA256) and its REST JWTs. The secret's UTF-8 bytes
/// are the HMAC key. A plain value; copying it costs two string retains.
public struct ProjectCredentials: Hashable, Sendable {
    /// The API key (project id), e.g. `"12345678"`; the `iss` of JWTs, `partner_id` of T1.
    public var apiKey: String
    /// The shared secret.
    public var apiSecret: String

    /// Credentials for the project `apiKey` with secret `apiSecret`.
    public init(apiKey: String, apiSecret: String) {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
    }

    /// A throwaway project: an 8-digit API key and a 40-hex-digit secret from OpenSSL's
    /// random generator (embedded routers, demos, tests). Cost: 28 random bytes.
    public static func random() -> ProjectCredentials {
        let key = Crypto.randomBytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 90_000_000 + 10_000_000
        return ProjectCredentials(apiKey: String(key), apiSecret: Crypto.hex(Crypto.randomBytes(20)))
    }
}
