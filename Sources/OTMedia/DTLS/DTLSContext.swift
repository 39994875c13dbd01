import CSSL

/// OpenSSL's `SSL_CTX` configured for WebRTC DTLS-SRTP, shared by every `DTLSTransport`
/// made from it: one per certificate and profile list (a router has one; a client one).
///
/// Configuration: DTLS 1.2 only (min = max), this side's certificate and key, the peer's
/// certificate required (`SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT`) on both
/// roles but trusted only by its fingerprint after the handshake (the verify callback
/// accepts the self-signed chain), `use_srtp` with `srtpProfiles` in preference order
/// (the server's order wins), no session tickets, no renegotiation, no MTU queries (memory BIOs; the link
/// MTU is set per transport).
///
/// Threads: immutable after `init`; OpenSSL allows `SSL_new` from any thread on a
/// configured context, so it is shared freely (`@unchecked Sendable`).
/// Cost: `init` a few OpenSSL calls (microseconds); freed with the last transport.
public final class DTLSContext: @unchecked Sendable {
    /// The certificate this side presents.
    public let certificate: DTLSCertificate
    /// The SRTP profiles offered (client) or accepted (server), most preferred first.
    public let srtpProfiles: [SRTPProfile]

    /// OpenSSL's `SSL_CTX *`, owned.
    let context: OpaquePointer

    /// Configures a context. `srtpProfiles` must not be empty (defaults: GCM, then
    /// AES-CM-SHA1-80). Throws `DTLSError.openSSL` naming the refused step.
    public init(certificate: DTLSCertificate, srtpProfiles: [SRTPProfile] = SRTPProfile.dtlsDefaultOrder) throws(DTLSError) {
        OpenSSLErrorQueue.clear()
        func failure(_ step: String) -> DTLSError { .openSSL(step: step, detail: OpenSSLErrorQueue.drain()) }
        guard !srtpProfiles.isEmpty else { throw .openSSL(step: "use_srtp", detail: "no SRTP profile given") }
        guard let context = SSL_CTX_new(DTLS_method()) else { throw failure("SSL_CTX_new") }
        func fail(_ step: String) -> DTLSError {
            let error = failure(step)
            SSL_CTX_free(context)
            return error
        }
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1 else { throw fail("SSL_CTX_use_certificate") }
        guard SSL_CTX_use_PrivateKey(context, certificate.privateKey) == 1 else { throw fail("SSL_CTX_use_PrivateKey") }
        guard SSL_CTX_check_private_key(context) == 1 else { throw fail("SSL_CTX_check_private_key") }
        guard cssl_ctx_set_min_proto_version(context, DTLS1_2_VERSION) == 1,
              cssl_ctx_set_max_proto_version(context, DTLS1_2_VERSION) == 1 else { throw fail("pin DTLS 1.2") }
        _ = SSL_CTX_set_options(context, cssl_op_no_query_mtu | cssl_op_no_ticket | cssl_op_no_renegotiation)
        // 0 is success here (OpenSSL's one inverted return value).
        let names = srtpProfiles.map(\.dtlsSRTPName).joined(separator: ":")
        guard SSL_CTX_set_tlsext_use_srtp(context, names) == 0 else { throw fail("SSL_CTX_set_tlsext_use_srtp") }
        // Self-signed peers are the norm: accept the chain here, check the fingerprint after.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, _ in 1 }
        self.context = context
        self.certificate = certificate
        self.srtpProfiles = srtpProfiles
    }

    deinit {
        SSL_CTX_free(context)
    }
}
