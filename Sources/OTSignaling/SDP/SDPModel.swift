/// One `<type>=<value>` line kept as text: the session's and sections' lines other than
/// `v=`, `o=`, `s=`, `m=` and `a=` (`i=`, `u=`, `e=`, `p=`, `c=`, `b=`, `t=`, `r=`, `z=`, `k=`).
public struct SDPLine: Equatable, Hashable, Sendable {
    /// The type letter (`c`, `t`, `b`, ...).
    public var type: Character
    /// Everything after `=`.
    public var value: String

    /// A line `type=value`; not checked until it is parsed back.
    public init(_ type: Character, _ value: String) {
        self.type = type
        self.value = value
    }
}

/// One `a=` line: `a=name` (a flag such as `rtcp-mux`) or `a=name:value`.
public struct SDPAttribute: Equatable, Hashable, Sendable {
    /// The attribute name (`rtpmap`, `mid`, `rtcp-mux`, ...).
    public var name: String
    /// The text after the first `:`, nil for a flag.
    public var value: String?

    /// An attribute `a=name` or `a=name:value`.
    public init(_ name: String, _ value: String? = nil) {
        self.name = name
        self.value = value
    }
}

/// The `o=` line: who made the description and its version (RFC 8866 §5.2).
public struct SDPOrigin: Equatable, Hashable, Sendable {
    /// The user name, `-` for none (browsers and this router use `-`).
    public var username: String
    /// The session id, a number fixed for the life of the session.
    public var sessionID: UInt64
    /// Incremented by the maker each time it changes the description.
    public var sessionVersion: UInt64
    /// `IN`.
    public var networkType: String
    /// `IP4` or `IP6`.
    public var addressType: String
    /// The maker's address; browsers write 127.0.0.1 and it means nothing.
    public var address: String

    /// An origin; the defaults are what browsers and the router write.
    public init(username: String = "-", sessionID: UInt64, sessionVersion: UInt64, networkType: String = "IN",
                addressType: String = "IP4", address: String = "127.0.0.1") {
        self.username = username
        self.sessionID = sessionID
        self.sessionVersion = sessionVersion
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}

/// One `m=` section: the media line, its `i=`/`c=`/`b=`/`k=` lines and its attributes in
/// the order they came (RFC 8866 §5.14). Typed readers of the attributes are in
/// ``SDPAttributeList``.
public struct SDPMediaDescription: Equatable, Hashable, Sendable, SDPAttributeList {
    /// `audio`, `video`, `application`, ...
    public var kind: String
    /// The port; 0 marks a rejected (or bundled-only) section.
    public var port: UInt16
    /// The `/<count>` after the port, rarely present.
    public var portCount: UInt16?
    /// The transport, `UDP/TLS/RTP/SAVPF` for WebRTC media.
    public var proto: String
    /// The formats: payload types for RTP transports, tokens otherwise (`webrtc-datachannel`).
    public var formats: [String]
    /// The section's `i=`, `c=`, `b=`, `k=` lines in order.
    public var lines: [SDPLine]
    /// The section's `a=` lines in order.
    public var attributes: [SDPAttribute]

    /// A section; `lines` usually holds one `c=`.
    public init(kind: String, port: UInt16, portCount: UInt16? = nil, proto: String, formats: [String],
                lines: [SDPLine] = [], attributes: [SDPAttribute] = []) {
        self.kind = kind
        self.port = port
        self.portCount = portCount
        self.proto = proto
        self.formats = formats
        self.lines = lines
        self.attributes = attributes
    }

    /// Whether the transport carries RTP (its formats are then payload types).
    public var isRTP: Bool { proto.contains("RTP/") }

    /// The formats as payload types, in m-line order (empty for non-RTP sections).
    /// Cost: one pass over the formats.
    public var payloadTypes: [UInt8] {
        guard isRTP else { return [] }
        return formats.compactMap { try? SDPScalar.payloadType(Substring($0)) }
    }
}

/// A parsed (or built) session description: RFC 8866's session part and its media sections.
///
/// Parse text with ``init(parsing:)``, write it with ``text``; build one from Swift with
/// ``init(origin:sessionName:lines:attributes:media:)`` and the typed attribute values
/// (``SDPRtpMap``, ``SDPExtmap``, ...). A value type, `Sendable`: a worker can keep one.
public struct SessionDescription: Equatable, Hashable, Sendable, SDPAttributeList {
    /// The `o=` line.
    public var origin: SDPOrigin
    /// The `s=` text; `-` for none.
    public var sessionName: String
    /// The session's `i=` ... `k=` lines in order (at least one `t=` when written).
    public var lines: [SDPLine]
    /// The session-level `a=` lines in order.
    public var attributes: [SDPAttribute]
    /// The `m=` sections in order.
    public var media: [SDPMediaDescription]

    /// A description; `lines` defaults to `t=0 0`, the only timing WebRTC uses.
    public init(origin: SDPOrigin, sessionName: String = "-", lines: [SDPLine] = [SDPLine("t", "0 0")],
                attributes: [SDPAttribute] = [], media: [SDPMediaDescription] = []) {
        self.origin = origin
        self.sessionName = sessionName
        self.lines = lines
        self.attributes = attributes
        self.media = media
    }

    /// The section whose `a=mid` is `mid`, if any. Cost: a scan of the sections.
    public func section(mid: String) -> SDPMediaDescription? {
        media.first { $0.mid == mid }
    }
}
