import CSSL

/// The self-signed ECDSA P-256 certificate and private key a DTLS endpoint presents, made
/// once at start (WebRTC authenticates certificates by the fingerprint in the SDP, not by
/// a CA), and its SHA-256 fingerprint for `a=fingerprint`.
///
/// Valid from a day ago (clock skew) for `validityDays` days; the subject and issuer CN
/// are `commonName`; a random 63-bit serial. Immutable after `init`, so it is shared by
/// every `DTLSContext` and thread (`@unchecked Sendable`: OpenSSL's key and certificate
/// objects are safe to read concurrently). Cost: `init` generates a P-256 key and signs
/// the certificate (well under a millisecond of CPU); everything else is free.
public final class DTLSCertificate: @unchecked Sendable {
    /// The default lifetime: 30 days (a router restarts far more often).
    public static let defaultValidityDays = 30

    /// The certificate's SHA-256 fingerprint, for this side's `a=fingerprint`.
    public let fingerprint: DTLSFingerprint

    /// OpenSSL's certificate (`X509 *`), owned.
    let certificate: OpaquePointer
    /// OpenSSL's private key (`EVP_PKEY *`), owned.
    let privateKey: OpaquePointer

    /// Generates a key and a self-signed certificate. Throws `DTLSError.openSSL` naming the
    /// step OpenSSL refused (none should on a working libssl).
    public init(commonName: String = "OTKit", validityDays: Int = DTLSCertificate.defaultValidityDays) throws(DTLSError) {
        OpenSSLErrorQueue.clear()
        func failure(_ step: String) -> DTLSError { .openSSL(step: step, detail: OpenSSLErrorQueue.drain()) }

        guard let keyContext = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw failure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(keyContext) }
        guard EVP_PKEY_keygen_init(keyContext) == 1 else { throw failure("EVP_PKEY_keygen_init") }
        guard EVP_PKEY_CTX_set_group_name(keyContext, "P-256") == 1 else { throw failure("EVP_PKEY_CTX_set_group_name") }
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(keyContext, &generated) == 1, let key = generated else { throw failure("EVP_PKEY_generate") }

        guard let x509 = X509_new() else {
            EVP_PKEY_free(key)
            throw failure("X509_new")
        }
        // From here on a failure frees both.
        func fail(_ step: String) -> DTLSError {
            let error = failure(step)
            X509_free(x509)
            EVP_PKEY_free(key)
            return error
        }
        guard X509_set_version(x509, 2) == 1 else { throw fail("X509_set_version") }
        let serial = UInt64.random(in: 1...UInt64(Int64.max))
        guard ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial) == 1 else { throw fail("serial number") }
        guard X509_gmtime_adj(X509_getm_notBefore(x509), -86_400) != nil,
              X509_gmtime_adj(X509_getm_notAfter(x509), max(1, validityDays) * 86_400) != nil else { throw fail("X509_gmtime_adj") }
        guard X509_set_pubkey(x509, key) == 1 else { throw fail("X509_set_pubkey") }
        guard let name = X509_get_subject_name(x509) else { throw fail("X509_get_subject_name") }
        // An explicit length: a [UInt8] is not NUL-terminated (-1 would run strlen past it).
        let cn = Array(commonName.utf8.prefix(64))
        let added = cn.withUnsafeBufferPointer {
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, $0.baseAddress, Int32($0.count), -1, 0)
        }
        guard added == 1 else { throw fail("X509_NAME_add_entry_by_txt") }
        guard X509_set_issuer_name(x509, name) == 1 else { throw fail("X509_set_issuer_name") }
        guard X509_sign(x509, key, EVP_sha256()) > 0 else { throw fail("X509_sign") }
        guard let digest = Self.sha256(of: x509) else { throw fail("X509_digest") }

        certificate = x509
        privateKey = key
        fingerprint = digest
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(privateKey)
    }

    /// The SHA-256 fingerprint of any certificate (`X509 *`), e.g. a peer's; nil if
    /// OpenSSL cannot encode it. Cost: one DER encoding and one SHA-256.
    static func sha256(of certificate: OpaquePointer) -> DTLSFingerprint? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1, Int(length) == DTLSFingerprint.length else {
            return nil
        }
        return DTLSFingerprint(sha256: Array(digest.prefix(Int(length))))
    }
}
