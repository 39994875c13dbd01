/// An SRTP protection profile: which cipher and authentication tag protect RTP and RTCP.
///
/// The default is `aeadAES128GCM` (RFC 7714): about half the cost of AES-CM + HMAC-SHA1
/// per 1200-byte packet on the OpenSSL primitives OTKit runs libsrtp2 on (`otbench
/// transport` prints both). The two AES-CM profiles (RFC 3711, RFC 4568)
/// are there for peers that offer nothing else. Every property is a constant: free.
public enum SRTPProfile: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// AEAD_AES_128_GCM (RFC 7714): AES-128 in GCM mode, 16-byte tag on RTP and RTCP,
    /// 12-byte master salt. The default.
    case aeadAES128GCM
    /// AES_CM_128_HMAC_SHA1_80 (RFC 3711): AES-128 counter mode, 80-bit HMAC-SHA1 tag on
    /// RTP and RTCP, 14-byte master salt. What every SRTP peer supports.
    case aesCM128HMACSHA1_80
    /// AES_CM_128_HMAC_SHA1_32 (RFC 3711, RFC 4568): as `_80` but a 32-bit tag on RTP.
    /// SRTCP keeps the 80-bit tag (RFC 4568 section 6.2.1, RFC 5764 section 4.1.2).
    case aesCM128HMACSHA1_32

    /// The profile to use when nothing else is negotiated.
    public static let `default` = SRTPProfile.aeadAES128GCM

    /// The most bytes any profile appends to an RTP or RTCP packet: a 16-byte tag plus
    /// the 4-byte SRTCP index (no MKI is ever used). Callers that reserve this much room
    /// after every packet never see `SRTPError.bufferTooSmall`, whatever the profile.
    public static let maxTrailer = 20

    /// The RFC name, as SDES `a=crypto` lines (RFC 4568) and DTLS-SRTP use it.
    public var rfcName: String {
        switch self {
        case .aeadAES128GCM: "AEAD_AES_128_GCM"
        case .aesCM128HMACSHA1_80: "AES_CM_128_HMAC_SHA1_80"
        case .aesCM128HMACSHA1_32: "AES_CM_128_HMAC_SHA1_32"
        }
    }

    /// The profile with this RFC name (exact, case-sensitive as the RFCs spell them), or nil.
    public init?(rfcName: String) {
        guard let profile = Self.allCases.first(where: { $0.rfcName == rfcName }) else { return nil }
        self = profile
    }

    /// The RFC name.
    public var description: String { rfcName }

    /// Master key length in bytes (16: AES-128).
    public var masterKeyLength: Int { 16 }

    /// Master salt length in bytes: 12 for GCM (RFC 7714 section 12), 14 for AES-CM (RFC 3711).
    public var masterSaltLength: Int {
        switch self {
        case .aeadAES128GCM: 12
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32: 14
        }
    }

    /// Key plus salt: what SDES `inline:` and GStreamer's `srtp-key` carry (28 or 30 bytes).
    public var keyMaterialLength: Int { masterKeyLength + masterSaltLength }

    /// Authentication tag appended to each SRTP packet, in bytes (16, 10 or 4).
    public var rtpTagLength: Int {
        switch self {
        case .aeadAES128GCM: 16
        case .aesCM128HMACSHA1_80: 10
        case .aesCM128HMACSHA1_32: 4
        }
    }

    /// Authentication tag appended to each SRTCP packet, in bytes (16 or 10).
    public var rtcpTagLength: Int {
        switch self {
        case .aeadAES128GCM: 16
        case .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32: 10
        }
    }

    /// Bytes `SRTPSession.protect` adds to an RTP packet (the tag).
    public var rtpTrailer: Int { rtpTagLength }

    /// Bytes `SRTPSession.protectRTCP` adds to an RTCP packet: the E flag and 31-bit
    /// SRTCP index (4 bytes, RFC 3711 section 3.4) plus the tag.
    public var rtcpTrailer: Int { rtcpTagLength + 4 }
}
