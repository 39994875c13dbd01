import OTMedia

/// How GStreamer's srtpenc/srtpdec spell an OTKit `SRTPKeyMaterial`: the master key and
/// salt as one plain-hex `GstBuffer` (30 bytes for AES-CM; 28 for AES-GCM, which srtpenc
/// accepts although its `key` property says "minimum of 30", measured on GStreamer 1.22)
/// and cipher/auth names per direction.
///
/// Profiles: AEAD_AES_128_GCM is `aes-128-gcm` with auth `null` (GCM authenticates);
/// AES_CM_128_HMAC_SHA1_80 is `aes-128-icm` + `hmac-sha1-80`; _32 uses `hmac-sha1-32`
/// on RTP and keeps `hmac-sha1-80` on RTCP (RFC 4568 section 6.2.1). Cost: string work.
struct GStreamerSRTPParameters: Sendable {
    /// The key and salt in lowercase hex, as `key=` and `srtp-key=(buffer)` take it.
    let keyHex: String
    /// The RTP cipher name (`aes-128-icm`, `aes-128-gcm`).
    let rtpCipher: String
    /// The RTP authentication name (`null`, `hmac-sha1-80`, `hmac-sha1-32`).
    let rtpAuth: String
    /// The RTCP cipher name.
    let rtcpCipher: String
    /// The RTCP authentication name.
    let rtcpAuth: String

    /// The parameters for `key` (its profile picks the names).
    init(_ key: SRTPKeyMaterial) {
        keyHex = key.keyAndSalt.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
        switch key.profile {
        case .aeadAES128GCM:
            (rtpCipher, rtpAuth, rtcpCipher, rtcpAuth) = ("aes-128-gcm", "null", "aes-128-gcm", "null")
        case .aesCM128HMACSHA1_80:
            (rtpCipher, rtpAuth, rtcpCipher, rtcpAuth) = ("aes-128-icm", "hmac-sha1-80", "aes-128-icm", "hmac-sha1-80")
        case .aesCM128HMACSHA1_32:
            (rtpCipher, rtpAuth, rtcpCipher, rtcpAuth) = ("aes-128-icm", "hmac-sha1-32", "aes-128-icm", "hmac-sha1-80")
        }
    }

    /// srtpenc properties: `key=… rtp-cipher=… rtp-auth=… rtcp-cipher=… rtcp-auth=…`.
    var encoderProperties: String {
        "key=\(keyHex) rtp-cipher=\(rtpCipher) rtp-auth=\(rtpAuth) rtcp-cipher=\(rtcpCipher) rtcp-auth=\(rtcpAuth)"
    }

    /// The caps fields srtpdec reads its key from (append to `application/x-srtp,…`).
    var capsFields: String {
        "srtp-key=(buffer)\(keyHex),srtp-cipher=(string)\(rtpCipher),srtp-auth=(string)\(rtpAuth),"
            + "srtcp-cipher=(string)\(rtcpCipher),srtcp-auth=(string)\(rtcpAuth)"
    }
}
