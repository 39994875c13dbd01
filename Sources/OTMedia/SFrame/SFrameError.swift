/// Why an SFrame operation failed. Every failure is a value: a frame that fails is
/// dropped (never decoded, never rendered) and the error says which OpenTok code, if
/// any, the failure stands for (`openTokCode`).
public enum SFrameError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Which side of the media path an error belongs to (publisher encrypts, subscriber decrypts).
    public enum Side: Sendable, Equatable {
        /// The publisher's encrypting side.
        case sender
        /// The subscriber's decrypting side.
        case receiver
    }

    /// The SFrame header is cut short: `length` bytes where the config byte asks for `needed`.
    case truncatedHeader(length: Int, needed: Int)
    /// The header is not in RFC 9605's one valid form: a KID or CTR of 0–7 sent in
    /// extra bytes, or with a leading zero byte (§4.3: "the minimum number of bytes").
    case nonMinimalHeader
    /// The frame after its header is shorter than the tag (`length` bytes, at least `tag` needed).
    case truncatedCiphertext(length: Int, tag: Int)
    /// The tag did not verify: another secret, or a tampered header, metadata, ciphertext
    /// or tag. OpenTok's `EncryptionSecretMismatch` (6003).
    case authenticationFailed
    /// This (KID, CTR) was already decrypted: a replay or a duplicate. Dropped quietly.
    case replayed(keyID: UInt64, counter: UInt64)
    /// The counter is further behind the newest of its KID than the replay window reaches.
    case tooOld(keyID: UInt64, counter: UInt64)
    /// The sender has used every 64-bit counter value under its key; it refuses to wrap
    /// (a repeated nonce would break AES-GCM). A new key (new secret or KID) is needed.
    case counterExhausted(keyID: UInt64)
    /// The output buffer has `available` bytes, `needed` are required. Nothing was written.
    case bufferTooSmall(side: Side, needed: Int, available: Int)
    /// The secret is not 8–256 characters (`length` given). OpenTok's
    /// `OTSessionInvalidEncryptionSecret` (6004).
    case invalidSecret(length: Int)
    /// A base key of a length RFC 9605 does not allow here (empty, or longer than 1024 bytes).
    case invalidBaseKey(length: Int)
    /// OpenSSL refused an operation (the text names it): an internal failure.
    case cryptoFailure(side: Side, String)

    /// OpenTok's error code for this failure, nil when none applies (a replayed or late
    /// frame is dropped and counted, not reported):
    /// 6003 `EncryptionSecretMismatch` for a frame that does not decrypt under this
    /// secret (tag failure, or bytes that are not an SFrame at all);
    /// 6001 `OTPublisherEncryptionInternalError` / 6002
    /// `OTSubscriberDecryptionInternalError` for internal failures of each side;
    /// 6004 `OTSessionInvalidEncryptionSecret` for a secret of the wrong length.
    public var openTokCode: Int? {
        switch self {
        case .truncatedHeader, .nonMinimalHeader, .truncatedCiphertext, .authenticationFailed: 6003
        case .replayed, .tooOld: nil
        case .counterExhausted: 6001
        case let .bufferTooSmall(side, _, _), let .cryptoFailure(side, _): side == .sender ? 6001 : 6002
        case .invalidSecret: 6004
        case .invalidBaseKey: 6002
        }
    }

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .truncatedHeader(length, needed): "SFrame header cut short: \(length) bytes, \(needed) needed; frame dropped"
        case .nonMinimalHeader: "SFrame header not minimally encoded (RFC 9605 §4.3); frame dropped"
        case let .truncatedCiphertext(length, tag): "SFrame ciphertext of \(length) bytes is shorter than its \(tag)-byte tag; frame dropped"
        case .authenticationFailed: "SFrame authentication failed: the encryption secret differs, or the frame was altered; frame dropped"
        case let .replayed(keyID, counter): "SFrame replay: KID \(keyID) CTR \(counter) was already received; frame dropped"
        case let .tooOld(keyID, counter): "SFrame KID \(keyID) CTR \(counter) is older than the replay window; frame dropped"
        case let .counterExhausted(keyID): "SFrame sender KID \(keyID) has used every counter value; set a new encryption secret"
        case let .bufferTooSmall(side, needed, available):
            "SFrame \(side == .sender ? "encrypt" : "decrypt") needs \(needed) bytes of output buffer but has \(available)"
        case let .invalidSecret(length): "the encryption secret has \(length) characters; it must have 8 to 256"
        case let .invalidBaseKey(length): "an SFrame base key of \(length) bytes is not accepted (1 to 1024)"
        case let .cryptoFailure(side, what): "OpenSSL failed in SFrame \(side == .sender ? "encryption" : "decryption"): \(what)"
        }
    }
}
