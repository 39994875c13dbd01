import Foundation
import Testing
import OTTestSupport
@testable import OTSignaling

/// Signatures recomputed by a second route (Python's hmac/hashlib, the openssl CLI) over
/// the exact bytes OTKit signed.
@Suite(.enabled(if: Subprocess.which("python3") != nil, "needs python3 for an independent HMAC"))
struct IndependentHMACTests {
    static func pythonHMAC(_ algorithm: String, key: String, message: String) throws -> String {
        let script = "import hmac,hashlib,sys; k,m=sys.stdin.read().split('\\n',1); "
            + "print(hmac.new(k.encode(), m.encode(), hashlib.\(algorithm)).hexdigest())"
        let result = try Subprocess.run(try #require(Subprocess.which("python3")), ["-c", script], stdin: key + "\n" + message)
        try #require(result.status == 0, "python3 failed: \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let inputs: [(role: Role, data: String?, layout: [String])] = [
        (.publisher, nil, []),
        (.subscriber, "name=Alice&id=42", ["focus", "big"]),
        (.moderator, "é 日本 ~ + % \"quoted\"", ["x"]),
        (.publisheronly, String(repeating: "z", count: 1000), []),
    ]

    @Test(arguments: inputs)
    func t1SignatureIsHMACSHA1OfTheDataString(input: (role: Role, data: String?, layout: [String])) throws {
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials, role: input.role,
                                              connectionData: input.data, initialLayoutClassList: input.layout, format: .t1,
                                              now: Fixtures.now, nonce: 4242)
        let text = String(decoding: try #require(Base64URL.decodeStandard(String(token.dropFirst(4)))), as: UTF8.self)
        let colon = try #require(text.firstIndex(of: ":"))
        let head = String(text[..<colon]), data = String(text[text.index(after: colon)...])
        let sig = try Self.pythonHMAC("sha1", key: Fixtures.credentials.apiSecret, message: data)
        #expect(head == "partner_id=12345678&sig=\(sig)")
        #expect(data.hasPrefix("session_id=\(Fixtures.sessionID)&create_time=\(Fixtures.now)&expire_time=\(Fixtures.now + 86_400)&role=\(input.role.rawValue)&nonce=4242&initial_layout_class_list="))
    }

    @Test(arguments: inputs)
    func jwtSignatureIsHMACSHA256OfTheSigningInput(input: (role: Role, data: String?, layout: [String])) throws {
        let token = try OpenTokToken.generate(sessionID: Fixtures.sessionID, credentials: Fixtures.credentials, role: input.role,
                                              connectionData: input.data, initialLayoutClassList: input.layout,
                                              now: Fixtures.now, nonce: 4242)
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let sig = try Self.pythonHMAC("sha256", key: Fixtures.credentials.apiSecret, message: parts[0] + "." + parts[1])
        #expect(Crypto.hex(try #require(Base64URL.decode(parts[2]))) == sig)
    }

    @Test(.enabled(if: Subprocess.which("openssl") != nil, "needs the openssl CLI"))
    func projectJWTSignatureMatchesOpenSSLCLI() throws {
        let token = ProjectJWT.sign(credentials: Fixtures.credentials, now: Fixtures.now, jti: "abc")
        let parts = token.split(separator: ".").map(String.init)
        let result = try Subprocess.run(try #require(Subprocess.which("openssl")),
                                        ["dgst", "-sha256", "-hmac", Fixtures.credentials.apiSecret, "-hex"],
                                        stdin: parts[0] + "." + parts[1])
        try #require(result.status == 0)
        let cliHex = try #require(result.stdout.split(separator: " ").last).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Crypto.hex(try #require(Base64URL.decode(parts[2]))) == cliHex)
    }
}
