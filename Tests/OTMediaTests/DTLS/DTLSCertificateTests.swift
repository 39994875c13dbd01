import CSSL
import Testing
@testable import OTMedia

/// The generated certificate and the a=fingerprint text: format, parse, reject.
@Suite struct DTLSCertificateTests {
    @Test func certificateIsP256SelfSignedFor30Days() throws {
        let certificate = try DTLSCertificate(commonName: "otkit-router")
        let key = try #require(X509_get0_pubkey(certificate.certificate))
        #expect(EVP_PKEY_get_bits(key) == 256)
        var group = [CChar](repeating: 0, count: 64)
        var length = 0
        #expect(EVP_PKEY_get_group_name(key, &group, group.count, &length) == 1)
        let groupName = String(decoding: group.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(groupName == "prime256v1" || groupName == "P-256")
        // Self-signed: the signature verifies with its own key.
        #expect(X509_verify(certificate.certificate, key) == 1)
        // Validity: now is inside it, and it ends between 29 and 31 days from now.
        var days: Int32 = 0, seconds: Int32 = 0
        #expect(ASN1_TIME_diff(&days, &seconds, nil, X509_get0_notAfter(certificate.certificate)) == 1)
        #expect(days >= 29 && days <= 30)
        #expect(X509_cmp_current_time(X509_get0_notBefore(certificate.certificate)) < 0)
        // Two certificates differ (fresh key, random serial).
        let other = try DTLSCertificate()
        #expect(other.fingerprint != certificate.fingerprint)
    }

    @Test func fingerprintTextRoundTrips() throws {
        let certificate = try DTLSCertificate()
        let text = certificate.fingerprint.sdpValue
        #expect(text.hasPrefix("sha-256 "))
        #expect(text.count == "sha-256 ".count + 32 * 3 - 1)
        #expect(text.dropFirst(8).allSatisfy { $0 == ":" || $0.isNumber || ("A"..."F").contains($0) })
        #expect(try DTLSFingerprint(sdpValue: text) == certificate.fingerprint)
        #expect(try DTLSFingerprint(sdpValue: "SHA-256 " + text.dropFirst(8).lowercased()) == certificate.fingerprint)
        #expect(try DTLSFingerprint(sdpValue: "  " + text + " \t") == certificate.fingerprint)
    }

    @Test func fingerprintMatchesOpenSSLDigest() throws {
        let certificate = try DTLSCertificate()
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        #expect(X509_digest(certificate.certificate, EVP_sha256(), &digest, &length) == 1)
        #expect(Array(digest.prefix(Int(length))) == certificate.fingerprint.bytes)
    }

    static let good = "sha-256 " + hexList(32, "AB")

    static func hexList(_ count: Int, _ group: String, _ separator: String = ":") -> String {
        [String](repeating: group, count: count).joined(separator: separator)
    }

    static let malformed: [String] = [
        "",
        "sha-256",
        "sha-1 " + hexList(20, "AB"),
        "sha-512 " + hexList(64, "AB"),
        "sha-256 " + hexList(31, "AB"),
        "sha-256 " + hexList(33, "AB"),
        "sha-256 " + hexList(32, "A"),
        "sha-256 " + hexList(32, "ABC"),
        "sha-256 " + hexList(32, "GG"),
        "sha-256 " + hexList(32, "AB", "-"),
        "sha-256 " + hexList(32, "AB") + ":",
        "sha-256 " + hexList(32, "AB") + " extra",
        "sha-256 " + hexList(32, "é"),
        "sha-256 " + String(repeating: "A", count: 10_000),
    ]

    @Test(arguments: DTLSCertificateTests.malformed)
    func malformedFingerprintsAreRejected(_ text: String) {
        #expect(throws: DTLSError.self) { try DTLSFingerprint(sdpValue: text) }
    }

    @Test func wellFormedControlParses() throws {
        #expect(try DTLSFingerprint(sdpValue: Self.good).bytes == [UInt8](repeating: 0xAB, count: 32))
        #expect(DTLSFingerprint(sha256: [1, 2, 3]) == nil)
    }
}
