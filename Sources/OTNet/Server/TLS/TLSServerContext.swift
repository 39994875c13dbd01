import CSSL
import Glibc

/// The OpenSSL server context of a TLS `WebServer`: TLS 1.2 and up, the certificate chain
/// and private key read from PEM files at start (a file that cannot be read or a key that
/// does not match fails the server's start, with OpenSSL's reason). Shared by every
/// connection; used on the service thread only. Cost: one SSL_CTX.
final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer

    /// Loads `certificate` (a PEM chain) and `key` (its PEM private key).
    init(certificate: String, key: String) throws(WebError) {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw Self.error("cannot create a TLS context") }
        self.context = context
        cssl_tls_server_modes(context)
        guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
            throw Self.error("cannot use the TLS certificate \(certificate)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
            throw Self.error("cannot use the TLS private key \(key)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw Self.error("the TLS private key \(key) does not match the certificate \(certificate)")
        }
    }

    deinit { SSL_CTX_free(context) }

    /// `what` followed by OpenSSL's first queued error (the queue is cleared).
    static func error(_ what: String) -> WebError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return WebError(what) }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return WebError("\(what): \(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
    }
}
