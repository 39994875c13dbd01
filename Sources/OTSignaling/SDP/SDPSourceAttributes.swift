/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576): a property of one RTP source.
public struct SDPSSRCAttribute: SDPAttributeValue, Equatable, Hashable {
    /// `ssrc`.
    public static let attributeName = "ssrc"
    /// The 32-bit source.
    public var ssrc: UInt32
    /// `cname`, `msid`, ...
    public var attribute: String
    /// The value after `:`, nil when absent.
    public var value: String?

    /// Property `attribute[:value]` of `ssrc`.
    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    /// Reads `1234 cname:abc` or `1234 msid:stream track`.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        guard let space = sdpValue.firstIndex(of: " ") else { throw .malformedField(field: "ssrc") }
        let rest = sdpValue[sdpValue.index(after: space)...]
        let nameEnd = rest.firstIndex(of: ":") ?? rest.endIndex
        guard SDPScalar.isToken(rest[..<nameEnd]) else { throw .malformedField(field: "ssrc") }
        self.init(ssrc: try SDPScalar.ssrc(sdpValue[..<space]), attribute: String(rest[..<nameEnd]),
                  value: nameEnd == rest.endIndex ? nil : String(rest[rest.index(after: nameEnd)...]))
    }

    /// `ssrc attribute[:value]`.
    public var sdpValue: String { "\(ssrc) \(attribute)" + (value.map { ":" + $0 } ?? "") }
}

/// `a=ssrc-group:<semantics> <ssrc> ...` (RFC 5576): `FID <media> <rtx>` pairs a source
/// with its retransmission source, `SIM` lists simulcast layers.
public struct SDPSSRCGroup: SDPAttributeValue, Equatable, Hashable {
    /// `ssrc-group`.
    public static let attributeName = "ssrc-group"
    /// `FID`, `SIM`, `FEC-FR`, ...
    public var semantics: String
    /// The sources, in order (1-32).
    public var ssrcs: [UInt32]

    /// A group of `ssrcs`.
    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    /// Reads `FID 1234 5678`.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard (2...33).contains(parts.count), SDPScalar.isToken(parts[0]) else { throw .malformedField(field: "ssrc-group") }
        var ssrcs: [UInt32] = []
        for part in parts.dropFirst() { ssrcs.append(try SDPScalar.ssrc(part)) }
        self.init(semantics: String(parts[0]), ssrcs: ssrcs)
    }

    /// `semantics ssrc ssrc ...`.
    public var sdpValue: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830): the MediaStream and track a section
/// carries; the receiving browser groups tracks into streams by it.
public struct SDPMsid: SDPAttributeValue, Equatable, Hashable {
    /// `msid`.
    public static let attributeName = "msid"
    /// The stream id (`-` for a track in no stream).
    public var stream: String
    /// The track id, nil when absent.
    public var track: String?

    /// An msid.
    public init(stream: String, track: String? = nil) {
        self.stream = stream
        self.track = track
    }

    /// Reads `stream track` (each 1-64 visible characters).
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard (1...2).contains(parts.count), parts.allSatisfy({ SDPScalar.isVisible($0) && $0.utf8.count <= 64 }) else {
            throw .malformedField(field: "msid")
        }
        self.init(stream: String(parts[0]), track: parts.count == 2 ? String(parts[1]) : nil)
    }

    /// `stream [track]`.
    public var sdpValue: String { stream + (track.map { " " + $0 } ?? "") }
}
