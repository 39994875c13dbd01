import COpenSSL

/// One side's ICE credentials (RFC 8445 section 5.3, RFC 8839 section 5.4): the username
/// fragment and password announced in SDP as `a=ice-ufrag` / `a=ice-pwd`.
///
/// Both are ICE characters (ALPHA / DIGIT / "+" / "/"); the ufrag has 4–256, the password
/// 22–256. The password's bytes key MESSAGE-INTEGRITY (short-term credentials).
public struct ICECredentials: Sendable, Hashable {
    /// The username fragment.
    public let ufrag: String
    /// The password.
    public let password: String

    /// The 64 ICE characters; 64 of them, so a random byte's low 6 bits pick one without bias.
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Length of a generated ufrag: 8 characters, 48 random bits (the minimum is 4).
    public static let generatedUfragLength = 8
    /// Length of a generated password: 24 characters, 144 random bits (the minimum is 22).
    public static let generatedPasswordLength = 24

    /// Checked credentials, or `ICEError.invalidCredentials` when either breaks the
    /// grammar or length limits. Cost: one pass over each string.
    public init(ufrag: String, password: String) throws(ICEError) {
        guard Self.isValid(ufrag, minimum: 4), Self.isValid(password, minimum: 22) else { throw .invalidCredentials }
        self.ufrag = ufrag
        self.password = password
    }

    /// Fresh random credentials from OpenSSL's `RAND_bytes`: an 8-character ufrag and a
    /// 24-character password. Cost: one `RAND_bytes` of 32 bytes and two small strings.
    public static func generate() -> ICECredentials {
        var random = [UInt8](repeating: 0, count: generatedUfragLength + generatedPasswordLength)
        precondition(RAND_bytes(&random, Int32(random.count)) == 1, "RAND_bytes failed in libcrypto")
        let characters = random.map { alphabet[Int($0 & 63)] }
        let ufrag = String(decoding: characters.prefix(generatedUfragLength), as: UTF8.self)
        let password = String(decoding: characters.suffix(generatedPasswordLength), as: UTF8.self)
        return try! ICECredentials(ufrag: ufrag, password: password)
    }

    /// True when `text` is `minimum`...256 ICE characters.
    public static func isValid(_ text: String, minimum: Int) -> Bool {
        let utf8 = text.utf8
        return utf8.count >= minimum && utf8.count <= 256 && utf8.allSatisfy(isICECharacter)
    }

    /// ALPHA / DIGIT / "+" / "/".
    static func isICECharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"),
             UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
        default: false
        }
    }
}
