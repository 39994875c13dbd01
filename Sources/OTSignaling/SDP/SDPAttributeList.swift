/// The value of one kind of `a=` attribute, read from and written to its text.
///
/// Each conforming type checks every number it reads (payload types 0-127, extmap ids
/// 1-255, SSRCs 32-bit, ports 16-bit ...) and throws the reason otherwise; the parser
/// runs it on every such attribute, so a parsed description only holds valid ones.
public protocol SDPAttributeValue: Sendable {
    /// The attribute name this type reads (`rtpmap`, `extmap`, ...).
    static var attributeName: String { get }
    /// Reads the text after `a=<name>:`. Cost: linear in the text.
    init(sdpValue: Substring) throws(SDPError.Reason)
    /// The text after `a=<name>:`, as ``init(sdpValue:)`` reads it back.
    var sdpValue: String { get }
}

/// Something with an ordered list of `a=` lines: a ``SessionDescription`` (session level)
/// or an ``SDPMediaDescription``. The typed readers decode on each call (a scan of the
/// attributes, allocation for the results): call them at negotiation time, not per packet.
public protocol SDPAttributeList {
    /// The `a=` lines in order.
    var attributes: [SDPAttribute] { get set }
}

extension SDPAttributeList {
    /// Every attribute of type `T`, in order; ones that do not read are left out (a parsed
    /// description has none). Cost: a scan of the attributes.
    public func all<T: SDPAttributeValue>(_ type: T.Type) -> [T] {
        attributes.compactMap { attribute in
            guard attribute.name == T.attributeName, let value = attribute.value else { return nil }
            return try? T(sdpValue: Substring(value))
        }
    }

    /// The first attribute of type `T`, if any. Cost: a scan of the attributes.
    public func first<T: SDPAttributeValue>(_ type: T.Type) -> T? {
        for attribute in attributes where attribute.name == T.attributeName {
            if let value = attribute.value, let decoded = try? T(sdpValue: Substring(value)) { return decoded }
        }
        return nil
    }

    /// Appends `a=<T.attributeName>:<value>`. Cost: one array append.
    public mutating func append<T: SDPAttributeValue>(_ value: T) {
        attributes.append(SDPAttribute(T.attributeName, value.sdpValue))
    }

    /// Appends `a=name` or `a=name:value`. Cost: one array append.
    public mutating func append(_ name: String, _ value: String? = nil) {
        attributes.append(SDPAttribute(name, value))
    }

    /// Whether a flag attribute (`a=rtcp-mux`, `a=ice-lite`, ...) is present. Cost: a scan.
    public func has(_ flag: String) -> Bool {
        attributes.contains { $0.name == flag }
    }

    /// The value of the first `a=name:value`, if any. Cost: a scan.
    public func value(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// `a=mid`, the section's identifier in BUNDLE groups and the `mid` header extension.
    public var mid: String? { value("mid") }
    /// `a=ice-ufrag`.
    public var iceUfrag: String? { value("ice-ufrag") }
    /// `a=ice-pwd`.
    public var icePwd: String? { value("ice-pwd") }
    /// The first `a=fingerprint`.
    public var fingerprint: SDPFingerprint? { first(SDPFingerprint.self) }
    /// `a=setup` (RFC 4145): who starts DTLS.
    public var setup: SDPSetupRole? { first(SDPSetupRole.self) }
    /// `a=rtcp-mux`: RTP and RTCP share one port (required by this router).
    public var rtcpMux: Bool { has("rtcp-mux") }
    /// The direction flag (`sendrecv`, `sendonly`, `recvonly`, `inactive`); nil when
    /// absent (which RFC 8866 reads as `sendrecv`).
    public var direction: SDPDirection? {
        for attribute in attributes {
            if let direction = SDPDirection(rawValue: attribute.name) { return direction }
        }
        return nil
    }
    /// Every `a=group` (`BUNDLE`, `LS`, ...).
    public var groups: [SDPGroup] { all(SDPGroup.self) }
    /// The mids of the first `a=group:BUNDLE`, nil when there is none.
    public var bundle: [String]? { groups.first { $0.semantics == "BUNDLE" }?.mids }
    /// Every `a=rtpmap`.
    public var rtpMaps: [SDPRtpMap] { all(SDPRtpMap.self) }
    /// Every `a=fmtp`.
    public var formatParameters: [SDPFormatParameters] { all(SDPFormatParameters.self) }
    /// Every `a=rtcp-fb`.
    public var rtcpFeedback: [SDPRTCPFeedback] { all(SDPRTCPFeedback.self) }
    /// Every `a=extmap`.
    public var extmaps: [SDPExtmap] { all(SDPExtmap.self) }
    /// Every `a=rid` (RFC 8851).
    public var rids: [SDPRid] { all(SDPRid.self) }
    /// `a=simulcast` (RFC 8853).
    public var simulcast: SDPSimulcast? { first(SDPSimulcast.self) }
    /// Every `a=ssrc`.
    public var ssrcs: [SDPSSRCAttribute] { all(SDPSSRCAttribute.self) }
    /// Every `a=ssrc-group` (`FID` pairs a media SSRC with its RTX SSRC).
    public var ssrcGroups: [SDPSSRCGroup] { all(SDPSSRCGroup.self) }
    /// The first `a=msid` (RFC 8830): the stream and track the section carries.
    public var msid: SDPMsid? { first(SDPMsid.self) }
    /// Every `a=candidate` (read only; the router's are host candidates it writes itself).
    public var candidates: [SDPCandidate] { all(SDPCandidate.self) }

    /// The `a=rtpmap` of payload type `pt`. Cost: a scan.
    public func rtpMap(for pt: UInt8) -> SDPRtpMap? { rtpMaps.first { $0.payloadType == pt } }
    /// The `a=fmtp` of payload type `pt`. Cost: a scan.
    public func formatParameters(for pt: UInt8) -> SDPFormatParameters? { formatParameters.first { $0.payloadType == pt } }
    /// The `a=rtcp-fb` lines that apply to `pt` (its own and the `*` ones). Cost: a scan.
    public func rtcpFeedback(for pt: UInt8) -> [SDPRTCPFeedback] {
        rtcpFeedback.filter { $0.payloadType == nil || $0.payloadType == pt }
    }
}
