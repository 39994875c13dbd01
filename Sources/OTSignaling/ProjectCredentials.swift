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
}
