extension WireTransport {
    /// Why the router cannot register a leg with this description, or nil when it can:
    /// the ICE ufrag must be 4–256 and the password 22–256 ICE characters (RFC 8839:
    /// letters, digits, `+`, `/`), and the fingerprint a `sha-256` digest of 32 bytes as
    /// an SDP writes it. Never throws, never traps on hostile text. Cost: one pass over
    /// each string (the fingerprint's at most 256 bytes are parsed).
    public var problem: String? {
        guard Self.isICE(iceUfrag, minimum: 4) else { return "the ICE ufrag is not 4-256 ICE characters" }
        guard Self.isICE(icePassword, minimum: 22) else { return "the ICE password is not 22-256 ICE characters" }
        guard sha256Fingerprint != nil else { return "the fingerprint is not a sha-256 digest of 32 bytes" }
        return nil
    }

    /// The 32 digest bytes of a `sha-256 AB:CD:...` fingerprint, nil for any other hash, a
    /// digest of another length, text over 256 bytes or text that does not parse.
    /// Cost: one parse of at most 256 bytes.
    public var sha256Fingerprint: [UInt8]? {
        guard fingerprint.utf8.count <= 256, let parsed = try? SDPFingerprint(sdpValue: Substring(fingerprint)),
              parsed.algorithm == "sha-256", parsed.bytes.count == 32 else { return nil }
        return parsed.bytes
    }

    private static func isICE(_ text: String, minimum: Int) -> Bool {
        let utf8 = text.utf8
        return utf8.count >= minimum && utf8.count <= 256 && utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2B || byte == 0x2F
        }
    }
}
