/// The two media kinds the router negotiates.
public enum SDPMediaKind: String, Sendable, Equatable, Hashable {
    /// Opus.
    case audio
    /// VP8 (+ RTX).
    case video
}

/// What one section settled on: everything the router's media plane needs to receive
/// (publisher) or send (subscriber) the section's RTP, in numbers the peer chose.
public struct SDPNegotiatedMedia: Sendable, Equatable, Hashable {
    /// The section's mid (the `mid` header extension's value).
    public var mid: String
    /// Audio or video.
    public var kind: SDPMediaKind
    /// The router's direction for the section (`recvonly` from a publisher, `sendonly` to
    /// a subscriber, `inactive` when the peer holds it).
    public var direction: SDPDirection
    /// Opus's or VP8's payload type.
    public var payloadType: UInt8
    /// VP8's RTX payload type (`apt` = ``payloadType``), nil when none was negotiated.
    public var rtxPayloadType: UInt8?
    /// The header extensions in use: URI → id (1-14).
    public var extensionIDs: [String: UInt8]
    /// The RTCP feedback both sides agreed to for ``payloadType``.
    public var rtcpFeedback: [SDPRTCPFeedback]
    /// The simulcast rids the publisher will send, lowest first as offered; empty without simulcast.
    public var rids: [String]
    /// SSRCs the peer announced for this section (media first), empty when it uses rids only.
    public var ssrcs: [UInt32]
    /// RTX SSRC by media SSRC, from `a=ssrc-group:FID`.
    public var rtxSSRCs: [UInt32: UInt32]

    /// A negotiated section.
    public init(mid: String, kind: SDPMediaKind, direction: SDPDirection, payloadType: UInt8, rtxPayloadType: UInt8? = nil,
                extensionIDs: [String: UInt8] = [:], rtcpFeedback: [SDPRTCPFeedback] = [], rids: [String] = [],
                ssrcs: [UInt32] = [], rtxSSRCs: [UInt32: UInt32] = [:]) {
        self.mid = mid
        self.kind = kind
        self.direction = direction
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.extensionIDs = extensionIDs
        self.rtcpFeedback = rtcpFeedback
        self.rids = rids
        self.ssrcs = ssrcs
        self.rtxSSRCs = rtxSSRCs
    }

    /// Whether feedback `type [parameter]` was agreed (`nack`, `nack pli`, `ccm fir`,
    /// `goog-remb`, `transport-cc`). Cost: a scan of a handful.
    public func hasFeedback(_ type: String, _ parameter: String? = nil) -> Bool {
        rtcpFeedback.contains { $0.type == type && $0.parameter == parameter }
    }
}

/// The codecs and feedback the router forwards (it never transcodes).
public enum SDPRouterCodecs {
    /// The router's own VP8 payload type in offers it makes.
    public static let vp8PayloadType: UInt8 = 96
    /// The router's own RTX payload type in offers it makes (apt 96).
    public static let rtxPayloadType: UInt8 = 97
    /// The router's own Opus payload type in offers it makes.
    public static let opusPayloadType: UInt8 = 111
    /// The RTCP feedback the router accepts or offers for VP8: (type, parameter).
    public static let videoFeedback: [(String, String?)] = [
        ("goog-remb", nil), ("transport-cc", nil), ("ccm", "fir"), ("nack", nil), ("nack", "pli"),
    ]
    /// The RTCP feedback for Opus.
    public static let audioFeedback: [(String, String?)] = [("transport-cc", nil)]
    /// The header extensions (id, URI) in the router's offers; the same id means the same
    /// URI in every section, as one BUNDLE transport requires (RFC 8843 §9.1).
    public static let audioExtensions: [(UInt8, String)] = [
        (1, SDPHeaderExtension.audioLevel), (2, SDPHeaderExtension.absSendTime),
        (3, SDPHeaderExtension.transportWideCC), (4, SDPHeaderExtension.mid),
    ]
    /// The video header extensions in the router's offers.
    public static let videoExtensions: [(UInt8, String)] = [
        (2, SDPHeaderExtension.absSendTime), (3, SDPHeaderExtension.transportWideCC), (4, SDPHeaderExtension.mid),
    ]

    /// Whether `feedback` is one the router handles for `kind`.
    static func supports(_ feedback: SDPRTCPFeedback, kind: SDPMediaKind) -> Bool {
        (kind == .video ? videoFeedback : audioFeedback).contains { $0.0 == feedback.type && $0.1 == feedback.parameter }
    }

    /// The VP8 / Opus payload type a section offers first (m-line order is preference),
    /// with VP8's RTX when an `a=fmtp:<rtx> apt=<vp8>` names it.
    static func choose(in section: SDPMediaDescription, kind: SDPMediaKind) -> (UInt8, UInt8?)? {
        let maps = section.rtpMaps
        for pt in section.payloadTypes {
            guard let map = maps.first(where: { $0.payloadType == pt }) else { continue }
            switch kind {
            case .audio:
                if map.isEncoding("opus"), map.clockRate == 48_000, map.channels == 2 { return (pt, nil) }
            case .video:
                guard map.isEncoding("VP8"), map.clockRate == 90_000 else { continue }
                let rtx = section.payloadTypes.first { candidate in
                    guard let rtxMap = maps.first(where: { $0.payloadType == candidate }), rtxMap.isEncoding("rtx"),
                          rtxMap.clockRate == 90_000 else { return false }
                    return section.formatParameters(for: candidate)?.associatedPayloadType == pt
                }
                return (pt, rtx)
            }
        }
        return nil
    }
}
