import COpenSSL

/// Keys of their own for each receiver of a relayed (peer-to-peer) stream, derived from the
/// publisher's master keys and the receiver's SSRC, so that no receiver can decrypt or forge
/// what the publisher sends another (each copy is protected with that receiver's keys) nor
/// pass its RTCP off as another's.
///
/// `send` (the publisher's media to the receiver) and `receive` (the receiver's RTCP to the
/// publisher) are HKDF-SHA256 (RFC 5869) of the master of the same direction, with the
/// label and the SSRC (big-endian) as info, cut to the profile's key || salt length. The
/// router derives a subscriber's keys when it hands out the leg (it holds the master, as it
/// holds every SDES key it relays); the publisher derives them when the receiver's first
/// SRTCP arrives (its SSRC travels in the clear in SRTCP's first 8 bytes) and keeps them if
/// the packet authenticates. A receiver's keys tell nothing of the master or of another
/// receiver's keys.
///
/// Cost: two HMAC-SHA256 for the extract and one or two per expanded block, per direction;
/// a few microseconds, once per receiver.
extension SRTPLegKeys {
    /// HKDF's salt: names the scheme, so these keys never equal another use of the master.
    static let relayedReceiverSalt = Array("otkit relayed receiver keys v1".utf8)

    /// The keys the publisher uses toward the receiver whose RTCP carries `ssrc`, from the
    /// publisher's own leg keys (`self`: send = master for media, receive = master for
    /// RTCP). The receiver's view is the `reversed` result.
    public func relayedReceiver(ssrc: UInt32) -> SRTPLegKeys {
        SRTPLegKeys(send: Self.derive(from: send, label: "media", ssrc: ssrc),
                    receive: Self.derive(from: receive, label: "rtcp", ssrc: ssrc))
    }

    /// HKDF-SHA256(salt, master key || salt, label || ssrc) cut to the profile's length.
    static func derive(from master: SRTPKeyMaterial, label: String, ssrc: UInt32) -> SRTPKeyMaterial {
        let info = Array(label.utf8) + [UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
        let prk = hmacSHA256(key: relayedReceiverSalt, message: master.keyAndSalt)
        var output: [UInt8] = []
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < master.profile.keyMaterialLength {
            block = hmacSHA256(key: prk, message: block + info + [counter])
            output += block
            counter += 1
        }
        // The length is the profile's by construction.
        return try! SRTPKeyMaterial(profile: master.profile, keyAndSalt: Array(output.prefix(master.profile.keyMaterialLength)))
    }

    /// HMAC-SHA256 of `message` keyed by `key` (OpenSSL's one-shot `HMAC`): 32 bytes.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count,
                         o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        precondition(result != nil && length == 32, "HMAC-SHA256 failed in libcrypto")
        return out
    }
}
