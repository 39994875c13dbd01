/// `a=fingerprint:<hash> <hex:hex:...>` (RFC 8122): the digest of the peer's DTLS
/// certificate, checked against the certificate it presents.
public struct SDPFingerprint: SDPAttributeValue, Equatable, Hashable {
    /// `fingerprint`.
    public static let attributeName = "fingerprint"
    /// The hash function, lower case (`sha-256`).
    public var algorithm: String
    /// The digest bytes (1-64).
    public var bytes: [UInt8]

    /// A fingerprint; `algorithm` is stored lower case.
    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// Reads `sha-256 AB:CD:...`: a token, a space, 1-64 hex pairs joined by `:`.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard parts.count == 2, SDPScalar.isToken(parts[0]) else { throw .malformedField(field: "fingerprint") }
        let pairs = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard (1...64).contains(pairs.count) else { throw .malformedField(field: "fingerprint") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pairs.count)
        for pair in pairs {
            // Two hex digits exactly: UInt8(_:radix:) alone would take "+F".
            guard pair.utf8.count == 2, pair.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }),
                  let byte = UInt8(pair, radix: 16) else { throw .malformedField(field: "fingerprint") }
            bytes.append(byte)
        }
        self.init(algorithm: String(parts[0]), bytes: bytes)
    }

    /// `sha-256 AB:CD:...` with upper-case hex, as browsers write it.
    public var sdpValue: String {
        let digits = Array("0123456789ABCDEF")
        let hex = bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }
        return algorithm + " " + hex.joined(separator: ":")
    }
}

/// `a=setup` (RFC 4145 §4): which side opens the DTLS connection.
public enum SDPSetupRole: String, SDPAttributeValue, Equatable, Hashable {
    /// This side starts the handshake (DTLS client).
    case active
    /// This side waits for the handshake (DTLS server).
    case passive
    /// Either: the offerer lets the answerer choose.
    case actpass
    /// Not now (not allowed in WebRTC).
    case holdconn

    /// `setup`.
    public static let attributeName = "setup"

    /// Reads `active`, `passive`, `actpass` or `holdconn`.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        guard let role = SDPSetupRole(rawValue: String(sdpValue)) else { throw .malformedField(field: "setup") }
        self = role
    }

    /// The role name.
    public var sdpValue: String { rawValue }
}

/// The direction flag of a section (RFC 8866 §6.7).
public enum SDPDirection: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Both ways (the default when no flag is present).
    case sendrecv
    /// This side only sends.
    case sendonly
    /// This side only receives.
    case recvonly
    /// Neither.
    case inactive

    /// The direction the other side answers with: sendonly ↔ recvonly.
    public var reversed: SDPDirection {
        switch self {
        case .sendonly: return .recvonly
        case .recvonly: return .sendonly
        default: return self
        }
    }
}

/// `a=group:<semantics> <mid> ...` (RFC 5888): sections that belong together; `BUNDLE`
/// (RFC 8843) puts them on one transport.
public struct SDPGroup: SDPAttributeValue, Equatable, Hashable {
    /// `group`.
    public static let attributeName = "group"
    /// `BUNDLE`, `LS`, ...
    public var semantics: String
    /// The member mids, in order (the first is the BUNDLE tag).
    public var mids: [String]

    /// A group of `mids`.
    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    /// Reads `BUNDLE 0 1 2` (a group may be empty: `BUNDLE` alone).
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard SDPScalar.isToken(parts[0]), parts.dropFirst().allSatisfy(SDPScalar.isToken) else {
            throw .malformedField(field: "group")
        }
        self.init(semantics: String(parts[0]), mids: parts.dropFirst().map(String.init))
    }

    /// `semantics mid mid ...`.
    public var sdpValue: String { ([semantics] + mids).joined(separator: " ") }
}

/// `a=candidate` (RFC 8839 §5.1): one ICE candidate. The router reads the browser's only
/// to log them (it is ICE-lite and learns addresses from STUN); it writes its own host
/// candidates with ``init(foundation:component:transport:priority:address:port:type:extensions:)``.
public struct SDPCandidate: SDPAttributeValue, Equatable, Hashable {
    /// `candidate`.
    public static let attributeName = "candidate"
    /// 1-32 ICE characters naming the candidate's base.
    public var foundation: String
    /// 1 for RTP (the only one with rtcp-mux), 2 for RTCP; 1-256.
    public var component: UInt16
    /// `udp` or `tcp` (kept as written).
    public var transport: String
    /// 1 to 2^31-1.
    public var priority: UInt32
    /// An IP address or an mDNS `.local` name.
    public var address: String
    /// 0-65535 (0 for TCP active candidates).
    public var port: UInt16
    /// `host`, `srflx`, `prflx`, `relay`.
    public var type: String
    /// The name-value pairs after the type (`raddr`, `rport`, `generation`, `ufrag`, ...).
    public var extensions: [(String, String)]

    /// A candidate.
    public init(foundation: String, component: UInt16 = 1, transport: String = "udp", priority: UInt32, address: String,
                port: UInt16, type: String = "host", extensions: [(String, String)] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.extensions = extensions
    }

    /// Reads `<foundation> <component> <transport> <priority> <address> <port> typ <type> [name value]...`,
    /// checking component 1-256, priority 1..2^31-1, port and `rport` 16-bit, `generation` 32-bit.
    public init(sdpValue: Substring) throws(SDPError.Reason) {
        let parts = SDPScalar.fields(sdpValue)
        guard parts.count >= 8, parts.count % 2 == 0, parts[6] == "typ",
              (1...32).contains(parts[0].utf8.count), parts[0].utf8.allSatisfy(SDPCandidate.isICEChar),
              SDPScalar.isToken(parts[2]), SDPScalar.isVisible(parts[4]), SDPScalar.isToken(parts[7])
        else { throw .malformedField(field: "candidate") }
        var extensions: [(String, String)] = []
        var index = 8
        while index < parts.count {
            let name = parts[index], value = parts[index + 1]
            guard SDPScalar.isToken(name), SDPScalar.isVisible(value) else { throw .malformedField(field: "candidate") }
            switch name {
            case "rport": _ = try SDPScalar.port(value, field: "candidate rport")
            case "generation", "network-id", "network-cost":
                _ = try SDPScalar.number(value, in: 0...UInt64(UInt32.max), field: "candidate \(name)")
            default: break
            }
            extensions.append((String(name), String(value)))
            index += 2
        }
        self.init(foundation: String(parts[0]),
                  component: UInt16(try SDPScalar.number(parts[1], in: 1...256, field: "candidate component")),
                  transport: String(parts[2]),
                  priority: UInt32(try SDPScalar.number(parts[3], in: 1...0x7FFF_FFFF, field: "candidate priority")),
                  address: String(parts[4]), port: try SDPScalar.port(parts[5], field: "candidate port"),
                  type: String(parts[7]), extensions: extensions)
    }

    /// The candidate line's value, as read.
    public var sdpValue: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type)"
        for (name, value) in extensions { text += " \(name) \(value)" }
        return text
    }

    /// ICE characters (RFC 8445 §5.3): ALPHA / DIGIT / "+" / "/".
    static func isICEChar(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "+"), UInt8(ascii: "/"): return true
        default: return false
        }
    }

    /// Pairs compared by content (tuples are not Equatable).
    public static func == (a: SDPCandidate, b: SDPCandidate) -> Bool { a.sdpValue == b.sdpValue }

    /// Hashes the candidate's text.
    public func hash(into hasher: inout Hasher) { hasher.combine(sdpValue) }
}
