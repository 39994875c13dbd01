/// The Binding requests a controlling ICE agent sends to one peer, and the test of the
/// peer's answers: USERNAME "<peer ufrag>:<own ufrag>", PRIORITY, ICE-CONTROLLING,
/// USE-CANDIDATE when nominating, MESSAGE-INTEGRITY with the peer's password and
/// FINGERPRINT (RFC 8445 section 7.1.1, RFC 7675 for consent checks). A success counts only
/// when its FINGERPRINT is right and its MESSAGE-INTEGRITY verifies with the peer's
/// password, so nobody who lacks the password can fake one.
///
/// Shared by `ICEClientConnector` (nominating checks) and `ICEConsentKeeper` (consent
/// checks). Cost: the username string and the password's bytes, kept once; writing or
/// checking a message is one HMAC-SHA1 and one CRC-32, nothing allocated.
struct ICEControllingCheck: Sendable {
    /// "<peer ufrag>:<own ufrag>".
    let username: String
    /// The peer's password: it keys our requests and its responses.
    let peerPassword: [UInt8]
    /// Our ICE-CONTROLLING tie-breaker, random per agent.
    let tieBreaker: UInt64
    /// PRIORITY of our (host) candidate: type preference 126, local 65535, component 1.
    static let priority: UInt32 = (126 << 24) | (65_535 << 8) | 255

    init(peer: ICECredentials, local: ICECredentials) {
        username = peer.ufrag + ":" + local.ufrag
        peerPassword = Array(peer.password.utf8)
        tieBreaker = UInt64.random(in: 1 ... UInt64.max)
    }

    /// Writes a check for `transaction` into `buffer` (at least 256 bytes) and returns its
    /// size. Throws `STUNError` only when the buffer is too small.
    func write(into buffer: UnsafeMutableRawBufferPointer, transaction: STUNTransactionID,
               nominate: Bool) throws(STUNError) -> Int {
        let written = peerPassword.withUnsafeBytes { key -> Result<Int, STUNError> in
            do throws(STUNError) {
                return .success(try STUNBinding.writeRequest(into: buffer, transactionID: transaction, username: username,
                                                             priority: Self.priority, tieBreaker: tieBreaker,
                                                             nominate: nominate, integrityKey: key))
            } catch {
                return .failure(error)
            }
        }
        return try written.get()
    }

    /// The transaction of `datagram` when it is a Binding success response with a right
    /// FINGERPRINT and a MESSAGE-INTEGRITY the peer's password verifies; nil otherwise.
    func authenticatedSuccess(_ datagram: UnsafeRawBufferPointer) -> STUNTransactionID? {
        guard case let .success(message) = STUNMessage.read(datagram), message.type == .bindingSuccess,
              message.verifyFingerprint(in: datagram),
              peerPassword.withUnsafeBytes({ message.verifyIntegrity(in: datagram, key: $0) }) else { return nil }
        return message.transactionID
    }
}
