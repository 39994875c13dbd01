import CSSL
import Glibc

/// One non-blocking TLS connection on an accepted socket (`SSL_set_fd`): the handshake,
/// reads and writes, each returning at once when the socket would block. Service thread
/// only. Cost: one SSL object (its buffers are released while idle).
final class TLSSession {
    private let ssl: OpaquePointer
    /// Whether the handshake has completed.
    private(set) var established = false

    /// What an operation did.
    enum Outcome: Equatable {
        /// This many bytes were read or written (the handshake: 0 when it completed).
        case done(Int)
        /// The socket must become readable (or, when `write`, writable) first.
        case wouldBlock(write: Bool)
        /// The peer closed the TLS stream (close_notify or end of stream).
        case closed
        /// A TLS or socket error: drop the connection.
        case failed
    }

    init?(context: TLSServerContext, descriptor: Int32) {
        guard let ssl = SSL_new(context.context) else { return nil }
        self.ssl = ssl
        SSL_set_fd(ssl, descriptor)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    /// Advances the handshake.
    func handshake() -> Outcome {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            established = true
            return .done(0)
        }
        return outcome(result)
    }

    /// Reads decrypted bytes into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        let result = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        return result > 0 ? .done(Int(result)) : outcome(result)
    }

    /// Writes up to `bytes.count` bytes (a partial write returns what was taken).
    func write(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard !bytes.isEmpty else { return .done(0) }
        let result = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        return result > 0 ? .done(Int(result)) : outcome(result)
    }

    /// Sends close_notify once, without waiting for the answer.
    func shutdown() {
        if established { _ = SSL_shutdown(ssl) }
        ERR_clear_error()
    }

    private func outcome(_ result: Int32) -> Outcome {
        let error = SSL_get_error(ssl, result)
        let savedErrno = errno
        ERR_clear_error()
        switch error {
        case SSL_ERROR_WANT_READ: return .wouldBlock(write: false)
        case SSL_ERROR_WANT_WRITE: return .wouldBlock(write: true)
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL where savedErrno == EAGAIN || savedErrno == EINTR: return .wouldBlock(write: false)
        default: return .failed
        }
    }
}
