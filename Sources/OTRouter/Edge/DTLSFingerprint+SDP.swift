import OTMedia
import OTSignaling

extension DTLSFingerprint {
    /// The fingerprint a peer's SDP names (`a=fingerprint`, already read by the SDP
    /// parser), as the DTLS handshake checks it. Throws `EdgeError.invalidDescription` for
    /// any hash but SHA-256 or a digest that is not 32 bytes. Cost: a 32-byte copy.
    public init(sdp: SDPFingerprint) throws(EdgeError) {
        guard sdp.algorithm == Self.sha256 else {
            throw .invalidDescription("a=fingerprint uses '\(sdp.algorithm.prefix(16))'; only sha-256 is accepted")
        }
        guard let fingerprint = DTLSFingerprint(sha256: sdp.bytes) else {
            throw .invalidDescription("a=fingerprint has \(sdp.bytes.count) bytes; sha-256 has \(Self.length)")
        }
        self = fingerprint
    }
}
