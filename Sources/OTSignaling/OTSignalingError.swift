/// Why a token, session id or project JWT was refused, or why one could not be made.
///
/// Every token-verification failure is OpenTok's `OTAuthorizationFailure` (1004) to a
/// connecting client (``openTokCode``); every project-JWT failure has the HTTP status the
/// REST API answers with (``httpStatus``).
public enum OTSignalingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a token / JWT / session id of the expected shape (bad base64,
    /// missing fields, wrong algorithm, a claim of the wrong type). `reason` says which part.
    case malformed(reason: String)
    /// The signature does not match the one computed with the project secret.
    case badSignature
    /// The token expired at `expireTime` (Unix seconds); it was checked at `now`.
    case expired(expireTime: Int64, now: Int64)
    /// The token is for `actual`, but the client asked to join `expected`.
    case wrongSession(expected: String, actual: String)
    /// The token (or the session id inside it) belongs to API key `actual`, not `expected`.
    case wrongAPIKey(expected: String, actual: String)
    /// The connection data has `count` characters; OpenTok allows at most 1000.
    case connectionDataTooLong(count: Int)
    /// The initial layout class list (space-joined) has `count` characters; at most 1000.
    case layoutClassListTooLong(count: Int)
    /// The expiry is more than 30 days after the token was issued (or after now).
    case expiryTooFar(expireTime: Int64, limit: Int64)
    /// The role is none of publisher, subscriber, moderator, publisheronly.
    case unknownRole(String)
    /// A project JWT (`X-OPENTOK-AUTH`) whose `ist` is not `"project"`.
    case notProjectToken(ist: String)
    /// A REST request arrived without an `X-OPENTOK-AUTH` header.
    case missingAuthentication
    /// A connection token (with `session_id`/`scope`) offered as a REST credential.
    case connectionTokenNotAccepted
    /// The credential's issue time is ahead of the server's clock by more than the leeway.
    case notYetValid(issuedAt: Int64, now: Int64)
    /// A project JWT valid for `lifetime` seconds (`exp - iat`), longer than the `limit`
    /// the server accepts: a long-lived REST credential is a standing admin key.
    case lifetimeTooLong(lifetime: Int64, limit: Int64)
    /// A token could not be generated from these arguments (empty session id, expiry in
    /// the past, an API key containing `~`, ...). `reason` says which.
    case invalidArgument(reason: String)

    /// OpenTok's `OTAuthorizationFailure` code: what a client sees for a refused token.
    public static let authorizationFailureCode = 1004

    /// The OpenTok error code a client gets for this failure: 1004 (`OTAuthorizationFailure`)
    /// for every verification failure, nil for ``invalidArgument(reason:)`` (a local
    /// programming error, never sent to a client).
    public var openTokCode: Int? {
        if case .invalidArgument = self { return nil }
        return Self.authorizationFailureCode
    }

    /// The HTTP status a REST request gets when its `X-OPENTOK-AUTH` JWT fails this way:
    /// 401 when no judgeable credential was presented (missing or malformed header), 403
    /// when one was presented and refused (bad signature, expired, other API key, not a
    /// project token); the Python server SDK reports 403 as `AuthError`. 400 for
    /// ``invalidArgument(reason:)``.
    public var httpStatus: Int {
        switch self {
        case .missingAuthentication, .malformed: return 401
        case .invalidArgument: return 400
        default: return 403
        }
    }

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .malformed(let reason): return "malformed credential: \(reason)"
        case .badSignature: return "signature does not match the project secret"
        case .expired(let expireTime, let now): return "expired at \(expireTime) (now \(now))"
        case .wrongSession(let expected, let actual): return "token is for session \(actual), not \(expected)"
        case .wrongAPIKey(let expected, let actual): return "credential belongs to API key \(actual), not \(expected)"
        case .connectionDataTooLong(let count): return "connection data has \(count) characters; the limit is 1000"
        case .layoutClassListTooLong(let count): return "initial layout class list has \(count) characters; the limit is 1000"
        case .expiryTooFar(let expireTime, let limit): return "expire time \(expireTime) is more than 30 days ahead (limit \(limit))"
        case .unknownRole(let role): return "unknown role \"\(role)\" (publisher, subscriber, moderator, publisheronly)"
        case .notProjectToken(let ist): return "JWT ist is \"\(ist)\", expected \"project\""
        case .missingAuthentication: return "missing X-OPENTOK-AUTH header"
        case .connectionTokenNotAccepted: return "a connection token cannot authenticate REST calls; sign a project JWT"
        case .notYetValid(let issuedAt, let now): return "issued at \(issuedAt), ahead of the server's clock (now \(now))"
        case .lifetimeTooLong(let lifetime, let limit):
            return "JWT valid for \(lifetime) s (exp - iat); the limit is \(limit) s: sign a fresh JWT per request"
        case .invalidArgument(let reason): return "cannot generate: \(reason)"
        }
    }
}
