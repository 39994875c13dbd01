/// The `X-OPENTOK-AUTH` JWT that authenticates REST calls under `/v2/project/{apiKey}`:
/// HS256 with the project secret over `{"ist":"project","iat":…,"exp":…,"iss":apiKey,"jti":…}`
/// (the Python server SDK's claim order; its default lifetime is 180 s).
///
/// One HMAC-SHA256 and a small JSON parse per call.
public enum ProjectJWT {
    /// The claims of a verified project JWT.
    public struct Claims: Equatable, Sendable {
        /// The API key that signed it (`iss`).
        public var apiKey: String
        /// Issued at, Unix seconds (`iat`).
        public var issuedAt: Int64
        /// Expiry, Unix seconds (`exp`).
        public var expireTime: Int64
        /// The JWT id (`jti`); the Python SDK sends a random float's text, not a UUID, so
        /// it is too weak for replay protection on its own. Nil if absent.
        public var jti: String?

        /// Claims with every field given.
        public init(apiKey: String, issuedAt: Int64, expireTime: Int64, jti: String?) {
            self.apiKey = apiKey
            self.issuedAt = issuedAt
            self.expireTime = expireTime
            self.jti = jti
        }
    }

    /// The Python server SDK's default lifetime: 3 minutes.
    public static let defaultLifetime: Int64 = 180
    /// The longest lifetime (`exp - iat`) accepted by default: 5 minutes. OpenTok's SDKs
    /// sign a fresh 3-minute JWT per request; a long-lived one is a standing admin key.
    public static let defaultMaximumLifetime: Int64 = 300
    /// Clock skew tolerated on `exp` (and on an `iat` in the future) by default: 30 s.
    public static let defaultLeeway: Int64 = 30

    /// Makes a project JWT for REST calls, as a server SDK would.
    ///
    /// - Parameters:
    ///   - credentials: the project key (`iss`) and secret (HMAC key).
    ///   - now: `iat`, Unix seconds (inject for tests).
    ///   - lifetime: `exp - iat` in seconds (default 180).
    ///   - jti: the JWT id (default 16 random bytes, hex).
    public static func sign(
        credentials: ProjectCredentials, now: Int64 = UnixTime.now(), lifetime: Int64 = defaultLifetime, jti: String? = nil
    ) -> String {
        HS256JWT.sign([
            ("ist", .string("project")), ("iat", .int(now)), ("exp", .int(now + lifetime)),
            ("iss", .string(credentials.apiKey)), ("jti", .string(jti ?? Crypto.hex(Crypto.randomBytes(16)))),
        ], secret: credentials.apiSecret)
    }

    /// Verifies the `X-OPENTOK-AUTH` header of a request to `/v2/project/{credentials.apiKey}/…`.
    ///
    /// Checks, in order: present (else ``OTSignalingError/missingAuthentication``, 401); a
    /// compact HS256 JWT with integer `iat`/`exp` and a string `iss` (else
    /// ``OTSignalingError/malformed(reason:)``, 401); `iss` equals the project's key
    /// (``OTSignalingError/wrongAPIKey(expected:actual:)``, 403); the signature (403);
    /// `ist` is `project` (403); not a connection token (no `scope` / `session_id`: a
    /// token handed to a client must not work as a REST credential:
    /// ``OTSignalingError/connectionTokenNotAccepted``, 403); `exp` after
    /// `now - leeway` (``OTSignalingError/expired(expireTime:now:)``, 403), `iat` before
    /// `now + leeway` (``OTSignalingError/notYetValid(issuedAt:now:)``, 403), and
    /// `exp - iat` at most `maximumLifetime` (``OTSignalingError/lifetimeTooLong(lifetime:limit:)``,
    /// 403; `exp` before `iat` is malformed, 401). Replays of a `jti` are the caller's to
    /// refuse (it holds the state).
    /// ``OTSignalingError/httpStatus`` gives the status to answer with.
    public static func verify(
        _ header: String?, credentials: ProjectCredentials, now: Int64 = UnixTime.now(), leeway: Int64 = defaultLeeway,
        maximumLifetime: Int64 = defaultMaximumLifetime
    ) throws(OTSignalingError) -> Claims {
        guard let header, !header.isEmpty else { throw .missingAuthentication }
        let parsed = try HS256JWT.parse(header, as: WireClaims.self)
        let claims = parsed.claims
        guard let iss = claims.iss, let iat = claims.iat, let exp = claims.exp else {
            throw .malformed(reason: "a project JWT has iss, iat and exp")
        }
        guard iss == credentials.apiKey else { throw .wrongAPIKey(expected: credentials.apiKey, actual: iss) }
        guard parsed.signatureMatches(secret: credentials.apiSecret) else { throw .badSignature }
        guard claims.ist == "project" else { throw .notProjectToken(ist: claims.ist ?? "") }
        guard claims.scope == nil, claims.session_id == nil else { throw .connectionTokenNotAccepted }
        guard exp > now - leeway else { throw .expired(expireTime: exp, now: now) }
        guard iat <= now + leeway else { throw .notYetValid(issuedAt: iat, now: now) }
        // Both come from the network: subtract without trapping (iat may be Int64.min).
        let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
        guard !overflow, lifetime >= 0 else { throw .malformed(reason: "exp is before iat") }
        guard lifetime <= maximumLifetime else { throw .lifetimeTooLong(lifetime: lifetime, limit: maximumLifetime) }
        return Claims(apiKey: iss, issuedAt: iat, expireTime: exp, jti: claims.jti)
    }

    private struct WireClaims: Decodable {
        var ist: String?
        var iss: String?
        var iat: Int64?
        var exp: Int64?
        var jti: String?
        var scope: String?
        var session_id: String?
    }
}
