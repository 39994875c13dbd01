/// The two wire formats of an OpenTok connection token.
public enum TokenFormat: String, Sendable, CaseIterable {
    /// An HS256 JWT (`scope` `session.connect`): what current server SDKs issue by default.
    case jwt
    /// The legacy `T1==` format: base64 of `partner_id=…&sig=<HMAC-SHA1 hex>:<form data>`.
    case t1
}

/// What a connection token grants, once its signature and limits have been checked by
/// ``OpenTokToken/verify(_:credentials:sessionID:now:)``.
public struct VerifiedToken: Equatable, Sendable {
    /// The format the token arrived in.
    public var format: TokenFormat
    /// The API key (project) that signed it.
    public var apiKey: String
    /// The session the token admits to.
    public var sessionID: String
    /// What the connection may do.
    public var role: Role
    /// When it was issued (JWT `iat`, T1 `create_time`), Unix seconds.
    public var issuedAt: Int64
    /// When it expires (JWT `exp`, T1 `expire_time`), Unix seconds.
    public var expireTime: Int64
    /// The random nonce (0...999999).
    public var nonce: Int64
    /// The application's connection data (`OTConnection.data`), nil if none (≤ 1000 characters).
    public var connectionData: String?
    /// The initial layout classes of the connection's streams (empty if none).
    public var initialLayoutClassList: [String]

    /// A grant with every field given.
    public init(format: TokenFormat, apiKey: String, sessionID: String, role: Role, issuedAt: Int64,
                expireTime: Int64, nonce: Int64, connectionData: String?, initialLayoutClassList: [String]) {
        self.format = format
        self.apiKey = apiKey
        self.sessionID = sessionID
        self.role = role
        self.issuedAt = issuedAt
        self.expireTime = expireTime
        self.nonce = nonce
        self.connectionData = connectionData
        self.initialLayoutClassList = initialLayoutClassList
    }
}
