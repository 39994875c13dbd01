/// `a=rtpmap:<pt> <encoding>/<clock rate>[/<channels>]` (RFC 8866 §6.6).
public struct SDPRtpMap: SDPAttributeValue, Equatable, Hashable {
    /// `rtpmap`.
    public static let attributeName = "rtpmap"
    /// 0-127.
    public var payloadType: UInt8
    /// `VP8`, `opus`, `rtx`, ... (compare case-insensitively: ``isEncoding(_:)``).
    public var encoding: String
    /// 1 to 10,000,000 Hz (90000 for video, 48000 for Opus).
    public var clockRate: UInt32
    /// Audio channels 1-255, nil when not written.
    public var channels: UInt8?

    /// A mapping of `payloadType` to `encoding/clockRate[/channels]`.
    public init(payloadType: UInt8, encoding: String, clockRate: UInt32, channels: UInt8? = nil) {
        self.payloadType = payloadType
        self.encoding = encoding
        self.clockRate = clockRate
        self.channels = channels
    }

    /// Reads `96 VP8/90000` or `111 opus/48000/2`.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard parts.count == 2 else { throw .malformedField(field: "rtpmap") }
        let codec = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        guard (2...3).contains(codec.count), SDPScalar.isToken(codec[0]) else { throw .malformedField(field: "rtpmap") }
        self.init(payloadType: try SDPScalar.payloadType(parts[0]), encoding: String(codec[0]),
                  clockRate: UInt32(try SDPScalar.number(codec[1], in: 1...10_000_000, field: "rtpmap clock rate")),
                  channels: codec.count == 3 ? UInt8(try SDPScalar.number(codec[2], in: 1...255, field: "rtpmap channels")) : nil)
    }

    /// `pt encoding/rate[/channels]`.
    public var sdpValue: String {
        "\(payloadType) \(encoding)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// Whether the encoding is `name` (encoding names are case-insensitive).
    public func isEncoding(_ name: String) -> Bool { encoding.lowercased() == name.lowercased() }
}

/// `a=fmtp:<pt> <parameters>` (RFC 8866 §6.15): codec parameters, kept as written.
public struct SDPFormatParameters: SDPAttributeValue, Equatable, Hashable {
    /// `fmtp`.
    public static let attributeName = "fmtp"
    /// 0-127.
    public var payloadType: UInt8
    /// The parameter text (`minptime=10;useinbandfec=1`, `apt=96`).
    public var parameters: String

    /// Parameters `parameters` for `payloadType`.
    public init(payloadType: UInt8, parameters: String) {
        self.payloadType = payloadType
        self.parameters = parameters
    }

    /// Reads `<pt> <text>`; an `apt=` value must be a payload type.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        guard let space = sdpValue.firstIndex(of: " ") else { throw .malformedField(field: "fmtp") }
        let rest = sdpValue[sdpValue.index(after: space)...]
        guard !rest.isEmpty, rest.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { throw .malformedField(field: "fmtp") }
        self.init(payloadType: try SDPScalar.payloadType(sdpValue[..<space]), parameters: String(rest))
        if let apt = parameter("apt") { _ = try SDPScalar.payloadType(Substring(apt)) }
    }

    /// `pt parameters`.
    public var sdpValue: String { "\(payloadType) \(parameters)" }

    /// The value of `name=value` among the `;`-separated parameters (spaces around are
    /// ignored), nil when absent. Cost: a scan of the text.
    public func parameter(_ name: String) -> String? {
        for item in parameters.split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            if pair[0].drop(while: { $0 == " " }).lowercased() == name.lowercased() { return String(pair[1]) }
        }
        return nil
    }

    /// The RTX `apt` (associated payload type), when present and valid.
    public var associatedPayloadType: UInt8? {
        parameter("apt").flatMap { try? SDPScalar.payloadType(Substring($0)) }
    }
}

/// `a=rtcp-fb:<pt|*> <type> [<parameter>]` (RFC 4585 §4.2): feedback the receiver sends.
public struct SDPRTCPFeedback: SDPAttributeValue, Equatable, Hashable {
    /// `rtcp-fb`.
    public static let attributeName = "rtcp-fb"
    /// The payload type, nil for `*` (every payload type of the section).
    public var payloadType: UInt8?
    /// `nack`, `ccm`, `goog-remb`, `transport-cc`, ...
    public var type: String
    /// `pli` (with `nack`), `fir` (with `ccm`), ...; nil when absent.
    public var parameter: String?

    /// Feedback `type [parameter]` for `payloadType` (nil: all).
    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    /// Reads `96 nack pli`, `* transport-cc`.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard (2...3).contains(parts.count), parts.dropFirst().allSatisfy(SDPScalar.isToken) else {
            throw .malformedField(field: "rtcp-fb")
        }
        self.init(payloadType: parts[0] == "*" ? nil : try SDPScalar.payloadType(parts[0]), type: String(parts[1]),
                  parameter: parts.count == 3 ? String(parts[2]) : nil)
    }

    /// `pt type [parameter]`.
    public var sdpValue: String {
        (payloadType.map(String.init) ?? "*") + " " + type + (parameter.map { " " + $0 } ?? "")
    }
}

/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8): an RTP header
/// extension and the id it carries in packets.
public struct SDPExtmap: SDPAttributeValue, Equatable, Hashable {
    /// `extmap`.
    public static let attributeName = "extmap"
    /// 1-14 for the one-byte form, up to 255 with the two-byte form (`extmap-allow-mixed`).
    public var id: UInt8
    /// The direction after `/`, nil when absent.
    public var direction: SDPDirection?
    /// The extension's URI.
    public var uri: String
    /// Extension attributes after the URI, nil when absent.
    public var extensionAttributes: String?

    /// An extension `uri` under `id`.
    public init(id: UInt8, direction: SDPDirection? = nil, uri: String, extensionAttributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.extensionAttributes = extensionAttributes
    }

    /// Reads `3 http://...transport-wide-cc...` or `5/recvonly urn:...`.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = sdpValue.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, SDPScalar.isVisible(parts[1]) else { throw .malformedField(field: "extmap") }
        let idParts = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        guard idParts.count <= 2 else { throw .malformedField(field: "extmap") }
        var direction: SDPDirection?
        if idParts.count == 2 {
            guard let value = SDPDirection(rawValue: String(idParts[1])) else { throw .malformedField(field: "extmap direction") }
            direction = value
        }
        if parts.count == 3 {
            guard !parts[2].isEmpty, parts[2].utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) else { throw .malformedField(field: "extmap") }
        }
        self.init(id: UInt8(try SDPScalar.number(idParts[0], in: 1...255, field: "extmap id")), direction: direction,
                  uri: String(parts[1]), extensionAttributes: parts.count == 3 ? String(parts[2]) : nil)
    }

    /// `id[/direction] uri [attributes]`.
    public var sdpValue: String {
        "\(id)" + (direction.map { "/" + $0.rawValue } ?? "") + " " + uri + (extensionAttributes.map { " " + $0 } ?? "")
    }
}

/// The header-extension URIs the router understands (RFC 8285 names), as browsers offer them.
public enum SDPHeaderExtension {
    /// `urn:ietf:params:rtp-hdrext:sdes:mid` (RFC 8843): which section a packet belongs to.
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// `urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id` (RFC 8852): the simulcast layer's rid.
    public static let rtpStreamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// `urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id`: the rid an RTX packet repairs.
    public static let repairedRTPStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    /// Google's absolute send time (REMB's input).
    public static let absSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// The transport-wide sequence number TWCC feedback acknowledges.
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// `urn:ietf:params:rtp-hdrext:ssrc-audio-level` (RFC 6464).
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"

    /// What the router accepts in audio sections.
    public static let audio: Set<String> = [mid, absSendTime, transportWideCC, audioLevel]
    /// What the router accepts in video sections.
    public static let video: Set<String> = [mid, rtpStreamID, repairedRTPStreamID, absSendTime, transportWideCC]
}
