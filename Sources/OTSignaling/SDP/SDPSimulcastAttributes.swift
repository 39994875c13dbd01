/// `a=rid:<id> <send|recv> [<restrictions>]` (RFC 8851): one RTP stream of a section,
/// named by the `rtp-stream-id` header extension; a simulcast publisher has one per layer.
public struct SDPRid: SDPAttributeValue, Equatable, Hashable {
    /// `rid`.
    public static let attributeName = "rid"
    /// 1-255 letters, digits, `-` or `_`.
    public var id: String
    /// `send` or `recv` (of the side that wrote it).
    public var direction: Direction
    /// `pt=...;max-width=...` restrictions as written, nil when absent.
    public var restrictions: String?

    /// The direction of a rid.
    public enum Direction: String, Sendable, Equatable, Hashable {
        /// The writer sends this stream.
        case send
        /// The writer receives this stream.
        case recv
    }

    /// A rid `id` in `direction`.
    public init(id: String, direction: Direction, restrictions: String? = nil) {
        self.id = id
        self.direction = direction
        self.restrictions = restrictions
    }

    /// Reads `h send` or `1 recv pt=96;max-width=640`, checking `pt` values (0-127) and
    /// `max-width` / `max-height` / `max-br` / `max-pps` (32-bit).
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard (2...3).contains(parts.count), SDPRid.isRidID(parts[0]), let direction = Direction(rawValue: String(parts[1])) else {
            throw .malformedField(field: "rid")
        }
        if parts.count == 3 {
            for item in parts[2].split(separator: ";", omittingEmptySubsequences: false) {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2, SDPScalar.isToken(pair[0]), SDPScalar.isVisible(pair[1]) else { throw .malformedField(field: "rid") }
                switch pair[0] {
                case "pt":
                    for pt in pair[1].split(separator: ",", omittingEmptySubsequences: false) { _ = try SDPScalar.payloadType(pt) }
                case "max-width", "max-height", "max-br", "max-pps":
                    _ = try SDPScalar.number(pair[1], in: 0...UInt64(UInt32.max), field: "rid \(pair[0])")
                default: break
                }
            }
        }
        self.init(id: String(parts[0]), direction: direction, restrictions: parts.count == 3 ? String(parts[2]) : nil)
    }

    /// `id direction [restrictions]`.
    public var sdpValue: String { "\(id) \(direction.rawValue)" + (restrictions.map { " " + $0 } ?? "") }

    /// RFC 8851 rid-id: 1*(ALPHA / DIGIT / "-" / "_"), at most 255 bytes.
    static func isRidID(_ text: Substring) -> Bool {
        (1...255).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "_"): return true
            default: return false
            }
        }
    }
}

/// `a=simulcast` (RFC 8853 §5.1): the rids a section sends and/or receives as simulcast
/// layers. Each direction is a list of streams; each stream lists alternative rids.
public struct SDPSimulcast: SDPAttributeValue, Equatable, Hashable {
    /// `simulcast`.
    public static let attributeName = "simulcast"

    /// One rid in a stream's list of alternatives.
    public struct Alternative: Sendable, Equatable, Hashable {
        /// The rid.
        public var rid: String
        /// Written `~rid`: offered but paused.
        public var paused: Bool

        /// An alternative `rid`, paused or not.
        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }
    }

    /// The streams sent (each a list of alternatives), nil when the writer sends none.
    public var send: [[Alternative]]?
    /// The streams received, nil when the writer receives none.
    public var recv: [[Alternative]]?

    /// A simulcast description; at least one direction should be non-nil.
    public init(send: [[Alternative]]? = nil, recv: [[Alternative]]? = nil) {
        self.send = send
        self.recv = recv
    }

    /// Reads `send h;m;l`, `recv 1;2`, `send a,b;c recv d` (each direction at most once).
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard parts.count == 2 || parts.count == 4 else { throw .malformedField(field: "simulcast") }
        var send: [[Alternative]]?, recv: [[Alternative]]?
        for index in stride(from: 0, to: parts.count, by: 2) {
            let list = try SDPSimulcast.streams(parts[index + 1])
            switch parts[index] {
            case "send" where send == nil: send = list
            case "recv" where recv == nil: recv = list
            default: throw .malformedField(field: "simulcast")
            }
        }
        self.init(send: send, recv: recv)
    }

    /// `send ... recv ...`.
    public var sdpValue: String {
        var parts: [String] = []
        if let send { parts.append("send " + SDPSimulcast.text(send)) }
        if let recv { parts.append("recv " + SDPSimulcast.text(recv)) }
        return parts.joined(separator: " ")
    }

    /// Every rid of `streams` in order (alternatives flattened). Cost: one pass.
    public static func rids(_ streams: [[Alternative]]) -> [String] { streams.flatMap { $0.map(\.rid) } }

    private static func streams(_ text: Substring) throws(SDPError.Reason) -> [[Alternative]] {
        var result: [[Alternative]] = []
        for stream in text.split(separator: ";", omittingEmptySubsequences: false) {
            var alternatives: [Alternative] = []
            for item in stream.split(separator: ",", omittingEmptySubsequences: false) {
                let paused = item.first == "~"
                let rid = paused ? item.dropFirst() : item
                guard SDPRid.isRidID(rid) else { throw .malformedField(field: "simulcast") }
                alternatives.append(Alternative(rid: String(rid), paused: paused))
            }
            result.append(alternatives)
        }
        return result
    }

    private static func text(_ streams: [[Alternative]]) -> String {
        streams.map { $0.map { ($0.paused ? "~" : "") + $0.rid }.joined(separator: ",") }.joined(separator: ";")
    }
}
