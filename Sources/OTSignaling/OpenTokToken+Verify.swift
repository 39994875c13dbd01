extension OpenTokToken {
    /// Checks a connection token and says what it grants.
    ///
    /// Checks, in order: the shape (``TokenFormat/t1`` if it starts with `T1==`, else a
    /// JWT with `alg` HS256); that it was issued for `credentials.apiKey` (T1 `partner_id`,
    /// JWT `iss`); the signature with the secret, compared in constant time; the required
    /// fields (JWT: `ist` `project`, `scope` `session.connect`); that its session id decodes and belongs to the key; that
    /// it is for `sessionID` (when given); that it has not expired at `now`; that the expiry
    /// is at most 30 days after issue (an issue time up to ``clockSkewAllowance`` ahead of
    /// `now` is believed); the role; connection data and layout class list at most 1000
    /// characters.
    ///
    /// - Returns: the grant.
    /// - Throws: ``OTSignalingError`` for the first failed check; each has ``OTSignalingError/openTokCode`` 1004.
    public static func verify(
        _ token: String,
        credentials: ProjectCredentials,
        sessionID expectedSessionID: String?,
        now: Int64 = UnixTime.now()
    ) throws(OTSignalingError) -> VerifiedToken {
        let fields: TokenFields
        let format: TokenFormat
        if token.hasPrefix(t1Prefix) {
            format = .t1
            fields = try verifyT1(token, credentials: credentials)
        } else {
            format = .jwt
            fields = try verifyJWT(token, credentials: credentials)
        }

        let session = try OpenTokSessionID(parsing: fields.sessionID)
        guard session.belongs(toAPIKey: credentials.apiKey) else {
            throw .wrongAPIKey(expected: credentials.apiKey, actual: session.apiKey)
        }
        if let expectedSessionID, expectedSessionID != fields.sessionID {
            throw .wrongSession(expected: expectedSessionID, actual: fields.sessionID)
        }
        guard fields.expireTime > now else { throw .expired(expireTime: fields.expireTime, now: now) }
        let limit = min(fields.issuedAt, now + clockSkewAllowance) + UnixTime.thirtyDays
        guard fields.expireTime <= limit else { throw .expiryTooFar(expireTime: fields.expireTime, limit: limit) }
        guard let role = Role(rawValue: fields.role) else { throw .unknownRole(fields.role) }
        let dataLength = fields.connectionData.unicodeScalars.count
        guard dataLength <= maximumConnectionDataLength else { throw .connectionDataTooLong(count: dataLength) }
        let layoutLength = fields.layoutClassList.unicodeScalars.count
        guard layoutLength <= maximumLayoutClassListLength else { throw .layoutClassListTooLong(count: layoutLength) }

        return VerifiedToken(
            format: format, apiKey: credentials.apiKey, sessionID: fields.sessionID, role: role,
            issuedAt: fields.issuedAt, expireTime: fields.expireTime, nonce: fields.nonce,
            connectionData: fields.connectionData.isEmpty ? nil : fields.connectionData,
            initialLayoutClassList: fields.layoutClassList.split(separator: " ").map(String.init))
    }

    /// How far ahead of this machine's clock a token's issue time may be (300 s) when the
    /// 30-day limit is measured from it: a server SDK on a slightly fast clock still gets
    /// its maximum-lifetime tokens accepted.
    public static let clockSkewAllowance: Int64 = 300

    /// The API key a token claims to be signed by (T1 `partner_id`, JWT `iss`), read
    /// without verifying anything: lets a multi-project router pick the secret to verify
    /// with. Nil if the token is not readable.
    public static func unverifiedAPIKey(of token: String) -> String? {
        if token.hasPrefix(t1Prefix) { return try? splitT1(token).partnerID }
        return try? HS256JWT.parse(token, as: ConnectClaims.self).claims.iss
    }

    // MARK: T1

    private static func splitT1(_ token: String) throws(OTSignalingError) -> (partnerID: String, signature: String, data: String) {
        guard let bytes = Base64URL.decodeStandard(String(token.dropFirst(t1Prefix.count))),
              let text = String(validating: bytes, as: UTF8.self)
        else { throw .malformed(reason: "a T1 token is base64 of UTF-8 text after T1==") }
        guard let colon = text.firstIndex(of: ":") else { throw .malformed(reason: "a T1 token has a ':' after its signature") }
        guard let head = FormEncoding.decode(String(text[..<colon])),
              let partnerID = try? unique("partner_id", in: head), let signature = try? unique("sig", in: head)
        else { throw .malformed(reason: "a T1 token starts with partner_id=…&sig=…") }
        return (partnerID, signature, String(text[text.index(after: colon)...]))
    }

    private static func verifyT1(_ token: String, credentials: ProjectCredentials) throws(OTSignalingError) -> TokenFields {
        let (partnerID, signatureHex, data) = try splitT1(token)
        guard partnerID == credentials.apiKey else { throw .wrongAPIKey(expected: credentials.apiKey, actual: partnerID) }
        guard let signature = Crypto.unhex(signatureHex) else { throw .malformed(reason: "the T1 sig is not hex") }
        let expected = Crypto.hmacSHA1(key: Array(credentials.apiSecret.utf8), message: Array(data.utf8))
        guard Crypto.constantTimeEqual(expected, signature) else { throw .badSignature }

        guard let form = FormEncoding.decode(data) else { throw .malformed(reason: "the T1 data is not form-encoded") }
        guard let sessionID = try unique("session_id", in: form), let role = try unique("role", in: form),
              let created = try unique("create_time", in: form), let expires = try unique("expire_time", in: form),
              let nonce = try unique("nonce", in: form)
        else { throw .malformed(reason: "the T1 data lacks session_id, create_time, expire_time, role or nonce") }
        guard let issuedAt = Int64(created), let expireTime = Int64(expires), let nonceValue = Int64(nonce) else {
            throw .malformed(reason: "T1 create_time, expire_time and nonce are integers")
        }
        return TokenFields(sessionID: sessionID, role: role, issuedAt: issuedAt, expireTime: expireTime, nonce: nonceValue,
                           connectionData: try unique("connection_data", in: form) ?? "",
                           layoutClassList: try unique("initial_layout_class_list", in: form) ?? "")
    }

    /// The value of `name`, nil if absent; a repeated field is malformed (no guessing
    /// which copy the signer meant).
    private static func unique(_ name: String, in fields: [(String, String)]) throws(OTSignalingError) -> String? {
        let values = fields.filter { $0.0 == name }
        guard values.count <= 1 else { throw .malformed(reason: "the field \(name) appears twice") }
        return values.first?.1
    }

    // MARK: JWT

    private static func verifyJWT(_ token: String, credentials: ProjectCredentials) throws(OTSignalingError) -> TokenFields {
        let parsed = try HS256JWT.parse(token, as: ConnectClaims.self)
        let claims = parsed.claims
        guard let iss = claims.iss else { throw .malformed(reason: "the token JWT has no iss") }
        guard iss == credentials.apiKey else { throw .wrongAPIKey(expected: credentials.apiKey, actual: iss) }
        guard parsed.signatureMatches(secret: credentials.apiSecret) else { throw .badSignature }
        guard claims.ist == "project" else { throw .notProjectToken(ist: claims.ist ?? "") }
        guard claims.scope == connectScope else { throw .malformed(reason: "the token JWT scope is not session.connect") }
        guard let sessionID = claims.session_id, let role = claims.role, let issuedAt = claims.iat,
              let expireTime = claims.exp, let nonce = claims.nonce
        else { throw .malformed(reason: "the token JWT lacks session_id, role, iat, exp or nonce") }
        return TokenFields(sessionID: sessionID, role: role, issuedAt: issuedAt, expireTime: expireTime, nonce: nonce,
                           connectionData: claims.connection_data ?? "", layoutClassList: claims.initial_layout_class_list ?? "")
    }
}

/// The claims of a connection-token JWT, named as on the wire.
struct ConnectClaims: Decodable {
    var iss: String?
    var ist: String?
    var iat: Int64?
    var exp: Int64?
    var scope: String?
    var session_id: String?
    var role: String?
    var nonce: Int64?
    var connection_data: String?
    var initial_layout_class_list: String?
}
