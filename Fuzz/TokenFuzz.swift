import COpenSSL
import OTSignaling

/// libFuzzer target: connection tokens (T1 and JWT) and project JWTs. The first byte picks
/// what the rest is:
/// - 0: a token as a client sends it: `OpenTokToken.verify`, `unverifiedAPIKey`,
///   `ProjectJWT.verify` and `OpenTokSessionID(parsing:)` on the raw text;
/// - 1: the data of a T1 token (`session_id=…&create_time=…`), signed here with the
///   project secret so the checks after the signature (numbers, session id, expiry, role)
///   are reached;
/// - 2: the claims JSON of a JWT, signed here with HS256, checked as a connection token
///   and as a project JWT.
/// `SID` in the input stands for a valid session id of the project (the fuzzer cannot
/// forge one). Every outcome is a value or a thrown `OTSignalingError`; a trap is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToken(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let rest = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
        .replacingAll("SID", with: TokenFuzzFixture.sessionID)
    let credentials = TokenFuzzFixture.credentials
    let now: Int64 = 1_700_000_000
    let token: String
    switch data[0] % 3 {
    case 0:
        token = rest
        _ = try? OpenTokSessionID(parsing: rest)
    case 1:
        let signature = TokenFuzzFixture.hmac(EVP_sha1(), key: credentials.apiSecret, message: rest)
        let head = "partner_id=\(credentials.apiKey)&sig=\(hex(signature))"
        token = "T1==" + Base64URL.encodeStandard(Array((head + ":" + rest).utf8))
    default:
        let input = Base64URL.encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + Base64URL.encode(rest)
        token = input + "." + Base64URL.encode(TokenFuzzFixture.hmac(EVP_sha256(), key: credentials.apiSecret, message: input))
    }
    _ = OpenTokToken.unverifiedAPIKey(of: token)
    _ = try? OpenTokToken.verify(token, credentials: credentials, sessionID: nil, now: now)
    _ = try? OpenTokToken.verify(token, credentials: credentials, sessionID: TokenFuzzFixture.sessionID, now: now)
    _ = try? ProjectJWT.verify(token, credentials: credentials, now: now)
    return 0
}

/// Lower-case hex of `bytes`, as the T1 `sig` field carries it.
private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
}

/// The project the fuzzed tokens are checked against, and HMAC with OpenSSL.
enum TokenFuzzFixture {
    static let credentials = ProjectCredentials(apiKey: "12345678", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    static let sessionID = (try? OpenTokSessionID.create(apiKey: "12345678", location: "", createTimeMilliseconds: 1_700_000_000_000,
                                                         random: "00112233445566778899aabb").description) ?? ""

    /// HMAC of `message` under `key` with the digest `md` (SHA-1 or SHA-256).
    static func hmac(_ md: OpaquePointer?, key: String, message: String) -> [UInt8] {
        let k = Array(key.utf8), m = Array(message.utf8)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = HMAC(md, k, Int32(k.count), m, m.count, &out, &length)
        return Array(out.prefix(Int(length)))
    }
}

extension String {
    /// Every `target` replaced by `replacement` (no Foundation in the fuzz target).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
