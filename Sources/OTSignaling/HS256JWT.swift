import Foundation

/// Compact HS256 JWTs (RFC 7519 / 7515): `base64url(header).base64url(claims).base64url(sig)`
/// with the header `{"alg":"HS256","typ":"JWT"}`. Shared by connection tokens and project
/// JWTs. One HMAC-SHA256 and a JSON parse per call.
enum HS256JWT {
    static let header = #"{"alg":"HS256","typ":"JWT"}"#

    /// Signs ordered `claims` with `secret` (its UTF-8 bytes are the key).
    static func sign(_ claims: [(String, ClaimValue)], secret: String) -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(JSONWriter.object(claims))
        let signature = Crypto.hmacSHA256(key: Array(secret.utf8), message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// A JWT split and decoded, not yet verified.
    struct Parsed<Claims: Decodable> {
        /// The decoded claims.
        var claims: Claims
        /// `header.payload`, the bytes the signature covers.
        var signingInput: String
        /// The decoded signature.
        var signature: [UInt8]

        /// Whether the signature is HMAC-SHA256 of the signing input under `secret`
        /// (constant-time comparison).
        func signatureMatches(secret: String) -> Bool {
            let expected = Crypto.hmacSHA256(key: Array(secret.utf8), message: Array(signingInput.utf8))
            return Crypto.constantTimeEqual(expected, signature)
        }
    }

    private struct Header: Decodable { var alg: String }

    /// Splits `jwt`, decodes its parts into `Claims` (a claim of the wrong JSON type is
    /// malformed), and insists on `alg` HS256 so `none` or RS256 cannot be smuggled in.
    /// Throws ``OTSignalingError/malformed(reason:)``.
    static func parse<Claims: Decodable>(_ jwt: String, as _: Claims.Type) throws(OTSignalingError) -> Parsed<Claims> {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed(reason: "a JWT has three dot-separated parts") }
        let decoder = JSONDecoder()
        guard let headerBytes = Base64URL.decode(String(parts[0])),
              let header = try? decoder.decode(Header.self, from: Data(headerBytes))
        else { throw .malformed(reason: "JWT header is not base64url JSON with an alg") }
        guard header.alg == "HS256" else { throw .malformed(reason: "JWT alg must be HS256, not \(header.alg)") }
        guard let claimBytes = Base64URL.decode(String(parts[1])) else {
            throw .malformed(reason: "JWT claims are not base64url")
        }
        let claims: Claims
        do {
            claims = try decoder.decode(Claims.self, from: Data(claimBytes))
        } catch {
            throw .malformed(reason: "JWT claims are not the expected JSON: \(error)")
        }
        guard let signature = Base64URL.decode(String(parts[2])), !signature.isEmpty
        else { throw .malformed(reason: "JWT signature is not base64url") }
        return Parsed(claims: claims, signingInput: parts[0] + "." + parts[1], signature: signature)
    }
}
