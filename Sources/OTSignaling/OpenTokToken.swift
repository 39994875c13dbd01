/// OpenTok connection tokens: generation and verification of both wire formats.
///
/// JWT (the default): HS256 over claims `session_id, role, iat, exp, scope="session.connect",
/// [initial_layout_class_list], [connection_data], iss=apiKey, ist="project", nonce`, in
/// that order, as the Python server SDK writes them. T1: `"T1==" + base64("partner_id=" +
/// apiKey + "&sig=" + hex(HMAC-SHA1(secret, data)) + ":" + data)`, where `data` is the
/// form-encoded `session_id, create_time, expire_time, role, nonce,
/// initial_layout_class_list, [connection_data]`. Each call costs one HMAC plus string work
/// of the token's size; nothing here is on a media path.
public enum OpenTokToken {
    /// Issues a connection token, applying the Python server SDK's checks in its order:
    /// non-empty session id, expiry not in the past and at most 30 days ahead, connection
    /// data and the space-joined layout class list at most 1000 characters each, then the
    /// session id must decode and belong to `credentials.apiKey`.
    ///
    /// - Parameters:
    ///   - sessionID: the session the token admits to.
    ///   - credentials: the project key and secret that sign it.
    ///   - role: what the connection may do (default publisher).
    ///   - expireTime: Unix seconds (default `now` + 24 h).
    ///   - connectionData: `OTConnection.data` for the client; nil or empty for none.
    ///   - initialLayoutClassList: layout classes for the client's streams.
    ///   - format: JWT (default, as current SDKs) or legacy T1.
    ///   - now: the clock, Unix seconds (inject for tests).
    ///   - nonce: 0...999999 (default random from OpenSSL's CSPRNG).
    /// - Throws: ``OTSignalingError`` naming the first check that failed.
    public static func generate(
        sessionID: String,
        credentials: ProjectCredentials,
        role: Role = .publisher,
        expireTime: Int64? = nil,
        connectionData: String? = nil,
        initialLayoutClassList: [String] = [],
        format: TokenFormat = .jwt,
        now: Int64 = UnixTime.now(),
        nonce: Int64? = nil
    ) throws(OTSignalingError) -> String {
        guard !sessionID.isEmpty else { throw .invalidArgument(reason: "the session id is empty") }
        let expiry = expireTime ?? now + UnixTime.oneDay
        guard expiry >= now else { throw .expired(expireTime: expiry, now: now) }
        guard expiry <= now + UnixTime.thirtyDays else {
            throw .expiryTooFar(expireTime: expiry, limit: now + UnixTime.thirtyDays)
        }
        let data = connectionData ?? ""
        let dataLength = data.unicodeScalars.count
        guard dataLength <= maximumConnectionDataLength else { throw .connectionDataTooLong(count: dataLength) }
        let layout = initialLayoutClassList.joined(separator: " ")
        let layoutLength = layout.unicodeScalars.count
        guard layoutLength <= maximumLayoutClassListLength else { throw .layoutClassListTooLong(count: layoutLength) }
        let session = try OpenTokSessionID(parsing: sessionID)
        guard session.belongs(toAPIKey: credentials.apiKey) else {
            throw .wrongAPIKey(expected: credentials.apiKey, actual: session.apiKey)
        }
        if let nonce, !(0...999_999).contains(nonce) {
            throw .invalidArgument(reason: "the nonce must be in 0...999999")
        }
        let fields = TokenFields(sessionID: sessionID, role: role.rawValue, issuedAt: now, expireTime: expiry,
                                 nonce: nonce ?? Int64(Crypto.randomNonce()), connectionData: data, layoutClassList: layout)
        return sign(fields, format: format, credentials: credentials)
    }

    /// Longest connection data, in characters (Unicode scalars, as Python counts them).
    public static let maximumConnectionDataLength = 1000
    /// Longest space-joined initial layout class list, in characters.
    public static let maximumLayoutClassListLength = 1000

    /// Signs `fields` as they are, without any check (tests use it to build tokens the
    /// generator refuses to issue).
    static func sign(_ fields: TokenFields, format: TokenFormat, credentials: ProjectCredentials) -> String {
        switch format {
        case .jwt:
            var claims: [(String, ClaimValue)] = [
                ("session_id", .string(fields.sessionID)), ("role", .string(fields.role)),
                ("iat", .int(fields.issuedAt)), ("exp", .int(fields.expireTime)),
                ("scope", .string(connectScope)),
            ]
            if !fields.layoutClassList.isEmpty { claims.append(("initial_layout_class_list", .string(fields.layoutClassList))) }
            if !fields.connectionData.isEmpty { claims.append(("connection_data", .string(fields.connectionData))) }
            claims += [("iss", .string(credentials.apiKey)), ("ist", .string("project")), ("nonce", .int(fields.nonce))]
            return HS256JWT.sign(claims, secret: credentials.apiSecret)
        case .t1:
            var form: [(String, String)] = [
                ("session_id", fields.sessionID), ("create_time", String(fields.issuedAt)),
                ("expire_time", String(fields.expireTime)), ("role", fields.role), ("nonce", String(fields.nonce)),
                ("initial_layout_class_list", fields.layoutClassList),
            ]
            if !fields.connectionData.isEmpty { form.append(("connection_data", fields.connectionData)) }
            let data = FormEncoding.encode(form)
            let signature = Crypto.hex(Crypto.hmacSHA1(key: Array(credentials.apiSecret.utf8), message: Array(data.utf8)))
            return t1Prefix + Base64URL.encodeStandard(Array("partner_id=\(credentials.apiKey)&sig=\(signature):\(data)".utf8))
        }
    }

    static let t1Prefix = "T1=="
    static let connectScope = "session.connect"
}

/// The signed content of a connection token, before any check (role kept as text so a
/// test can sign an unknown one).
struct TokenFields {
    var sessionID: String
    var role: String
    var issuedAt: Int64
    var expireTime: Int64
    var nonce: Int64
    var connectionData: String
    var layoutClassList: String
}
