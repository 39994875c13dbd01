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

    @Test func fingerprintTextIsWhatBrowsersWrite() throws {
        let certificate = try DTLSCertificate()
        let text = certificate.fingerprint.sdpValue
        #expect(text.hasPrefix("sha-256 "))
        #expect(text.count == "sha-256 ".count + 32 * 3 - 1)
        #expect(text.dropFirst(8).allSatisfy { $0 == ":" || $0.isNumber || ("A"..."F").contains($0) })
        // Reading it back (through the SDP parser, the only reader): EdgeFingerprintTests.
    }

    @Test func fingerprintMatchesOpenSSLDigest() throws {
        let certificate = try DTLSCertificate()
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        #expect(X509_digest(certificate.certificate, EVP_sha256(), &digest, &length) == 1)
        #expect(Array(digest.prefix(Int(length))) == certificate.fingerprint.bytes)
    }

    @Test func onlyAThirtyTwoByteDigestMakesAFingerprint() {
        #expect(DTLSFingerprint(sha256: [1, 2, 3]) == nil)
        #expect(DTLSFingerprint(sha256: [UInt8](repeating: 0xAB, count: 32))?.bytes == [UInt8](repeating: 0xAB, count: 32))
    }
}
