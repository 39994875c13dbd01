/// The parser's check of one `a=` line: known attributes are read by their typed value
/// (so every number in them is range-checked) and flags must have no value; unknown
/// attributes are kept as text (RFC 8866 §5.13: ignore what you do not understand).
enum SDPAttributeCheck {
    /// Attributes that are flags: `a=name` with no value.
    static let flags: Set<String> = [
        "rtcp-mux", "rtcp-rsize", "ice-lite", "end-of-candidates", "extmap-allow-mixed", "bundle-only",
        "sendrecv", "sendonly", "recvonly", "inactive",
    ]

    /// Throws the reason `attribute` is not acceptable.
    static func check(_ attribute: SDPAttribute) throws(SDPError.Reason) {
        let name = attribute.name
        if flags.contains(name) {
            guard attribute.value == nil else { throw .malformedField(field: name) }
            return
        }
        guard let value = attribute.value.map({ Substring($0) }) else {
            if known.contains(name) { throw .malformedField(field: name) }
            return
        }
        switch name {
        case "mid":
            guard SDPScalar.isToken(value), value.utf8.count <= 255 else { throw .malformedField(field: "mid") }
        case "ice-ufrag": try iceChars(value, in: 4...256, field: "ice-ufrag")
        case "ice-pwd": try iceChars(value, in: 22...256, field: "ice-pwd")
        case "fingerprint": _ = try SDPFingerprint(sdpValue: value)
        case "setup": _ = try SDPSetupRole(sdpValue: value)
        case "group": _ = try SDPGroup(sdpValue: value)
        case "rtpmap": _ = try SDPRtpMap(sdpValue: value)
        case "fmtp": _ = try SDPFormatParameters(sdpValue: value)
        case "rtcp-fb": _ = try SDPRTCPFeedback(sdpValue: value)
        case "extmap": _ = try SDPExtmap(sdpValue: value)
        case "rid": _ = try SDPRid(sdpValue: value)
        case "simulcast": _ = try SDPSimulcast(sdpValue: value)
        case "ssrc": _ = try SDPSSRCAttribute(sdpValue: value)
        case "ssrc-group": _ = try SDPSSRCGroup(sdpValue: value)
        case "msid": _ = try SDPMsid(sdpValue: value)
        case "candidate": _ = try SDPCandidate(sdpValue: value)
        case "rtcp":
            // `a=rtcp:<port> [IN IP4 <address>]` (RFC 3605).
            _ = try SDPScalar.port(value.prefix { $0 != " " }, field: "rtcp port")
        case "ptime", "maxptime":
            _ = try SDPScalar.number(value, in: 1...10_000, field: name)
        case "max-message-size":
            _ = try SDPScalar.number(value, in: 0...UInt64(UInt32.max), field: name)
        case "sctp-port":
            _ = try SDPScalar.port(value, field: name)
        default: break
        }
    }

    /// Attributes that must carry a value.
    static let known: Set<String> = [
        "mid", "ice-ufrag", "ice-pwd", "fingerprint", "setup", "group", "rtpmap", "fmtp", "rtcp-fb", "extmap", "rid",
        "simulcast", "ssrc", "ssrc-group", "msid", "candidate", "rtcp", "ptime", "maxptime", "max-message-size", "sctp-port",
    ]

    /// `value` is `range` ICE characters (RFC 8839 §5.4).
    static func iceChars(_ value: Substring, in range: ClosedRange<Int>, field: String) throws(SDPError.Reason) {
        guard range.contains(value.utf8.count), value.utf8.allSatisfy(SDPCandidate.isICEChar) else {
            throw .malformedField(field: field)
        }
    }
}
