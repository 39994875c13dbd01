/// The names and ids DTLS `use_srtp` (RFC 5764 section 4.1.2, RFC 7714 section 14.2) gives
/// OTKit's SRTP profiles. Constants: free.
extension SRTPProfile {
    /// OpenSSL's name for the profile in `SSL_CTX_set_tlsext_use_srtp`.
    public var dtlsSRTPName: String {
        switch self {
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        case .aesCM128HMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aesCM128HMACSHA1_32: "SRTP_AES128_CM_SHA1_32"
        }
    }

    /// The profile's id in the use_srtp extension (0x0007, 0x0001, 0x0002).
    public var dtlsSRTPID: UInt {
        switch self {
        case .aeadAES128GCM: 0x0007
        case .aesCM128HMACSHA1_80: 0x0001
        case .aesCM128HMACSHA1_32: 0x0002
        }
    }

    /// The profile with this use_srtp id, or nil for one OTKit has no libsrtp2 mapping for
    /// (e.g. AEAD_AES_256_GCM, 0x0008).
    public init?(dtlsSRTPID id: UInt) {
        guard let profile = Self.allCases.first(where: { $0.dtlsSRTPID == id }) else { return nil }
        self = profile
    }

    /// The order a WebRTC endpoint offers: AES-GCM first (about half the cost per packet,
    /// see `SRTPProfile`), AES-CM-SHA1-80 accepted for peers without GCM.
    public static let dtlsDefaultOrder: [SRTPProfile] = [.aeadAES128GCM, .aesCM128HMACSHA1_80]
}
