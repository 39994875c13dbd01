/// Why an SRTP operation failed. Packet errors are values: a packet that fails is
/// dropped and counted (`SRTPCounters`), never decoded.
public enum SRTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tag did not verify: wrong key, tampered or corrupt packet. The buffer's
    /// contents are undefined afterwards (GCM may have decrypted in place) and must be dropped.
    case authenticationFailed
    /// A packet with this index was already accepted (a replay or a duplicate).
    case replayed
    /// The packet is older than the replay window (1024 packets behind the newest).
    case tooOld
    /// The packet is shorter than its header says, or an argument is out of range.
    case badParameter
    /// The buffer has no room for the trailer: `needed` bytes in all, `available` given.
    /// Reserve `SRTPProfile.maxTrailer` bytes after every packet up front.
    case bufferTooSmall(needed: Int, available: Int)
    /// Key material of the wrong length or not valid base64; the text says which.
    case invalidKeyMaterial(String)
    /// `protect` on a receiver session or `unprotect` on a sender session.
    case wrongDirection
    /// libsrtp refused for another reason; `code` is its `srtp_err_status_t` value.
    case libraryFailure(code: Int)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .authenticationFailed: "SRTP authentication failed (wrong key, or a corrupt or forged packet); packet dropped"
        case .replayed: "SRTP replay: this packet index was already received; packet dropped"
        case .tooOld: "SRTP replay: the packet is older than the replay window; packet dropped"
        case .badParameter: "SRTP packet too short or its header inconsistent with its length"
        case let .bufferTooSmall(needed, available):
            "SRTP needs \(needed) bytes of buffer but has \(available): reserve SRTPProfile.maxTrailer bytes after each packet"
        case let .invalidKeyMaterial(reason): "SRTP key material rejected: \(reason)"
        case .wrongDirection: "SRTP session used in the wrong direction (protect on a receiver or unprotect on a sender)"
        case let .libraryFailure(code): "libsrtp2 failed with status \(code)"
        }
    }
}
