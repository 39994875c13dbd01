/// One host candidate the router announces: the media port's address as peers reach it
/// (the `--public-ip` behind NAT).
public struct SDPHostCandidate: Sendable, Equatable, Hashable {
    /// An IPv4 or IPv6 address.
    public var address: String
    /// The UDP port.
    public var port: UInt16

    /// A host candidate at `address:port`.
    public init(address: String, port: UInt16) {
        self.address = address
        self.port = port
    }
}

/// The router's side of the transport, written into every answer and offer it makes:
/// its ICE credentials, its DTLS certificate's fingerprint and its host candidates.
public struct SDPLocalTransport: Sendable, Equatable, Hashable {
    /// ICE ufrag: 4-256 ICE characters (letters, digits, `+`, `/`).
    public var iceUfrag: String
    /// ICE password: 22-256 ICE characters.
    public var icePwd: String
    /// The sha-256 fingerprint of the router's DTLS certificate.
    public var fingerprint: SDPFingerprint
    /// At least one UDP host candidate (the one-port media address).
    public var candidates: [SDPHostCandidate]

    /// The router's transport values; checked when an answer or offer is made.
    public init(iceUfrag: String, icePwd: String, fingerprint: SDPFingerprint, candidates: [SDPHostCandidate]) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.candidates = candidates
    }

    /// Throws `.invalidLocalTransport` (side `.local`) naming the first bad field.
    func validate() throws(SDPNegotiationError) {
        func bad(_ field: String) -> SDPNegotiationError { SDPNegotiationError(.local, .invalidLocalTransport(field: field)) }
        do { try SDPAttributeCheck.iceChars(Substring(iceUfrag), in: 4...256, field: "ice-ufrag") } catch { throw bad("ice-ufrag") }
        do { try SDPAttributeCheck.iceChars(Substring(icePwd), in: 22...256, field: "ice-pwd") } catch { throw bad("ice-pwd") }
        guard fingerprint.algorithm == "sha-256", fingerprint.bytes.count == 32 else { throw bad("fingerprint") }
        guard !candidates.isEmpty else { throw bad("candidates") }
        for candidate in candidates where !SDPScalar.isVisible(Substring(candidate.address)) || candidate.port == 0 {
            throw bad("candidates")
        }
    }

    /// `IP6` for an address with a `:`, else `IP4`.
    static func addressType(_ address: String) -> String { address.contains(":") ? "IP6" : "IP4" }

    /// The transport attributes of one section, in the order browsers write them:
    /// `ice-ufrag`, `ice-pwd`, `fingerprint`, `setup`.
    func transportAttributes(setup: SDPSetupRole) -> [SDPAttribute] {
        [SDPAttribute("ice-ufrag", iceUfrag), SDPAttribute("ice-pwd", icePwd),
         SDPAttribute(SDPFingerprint.attributeName, fingerprint.sdpValue), SDPAttribute(SDPSetupRole.attributeName, setup.rawValue)]
    }

    /// The `a=candidate` lines (host, UDP, component 1, priorities falling in list order)
    /// and `a=end-of-candidates`.
    func candidateAttributes() -> [SDPAttribute] {
        var out: [SDPAttribute] = []
        for (index, host) in candidates.enumerated() {
            // RFC 8445 §5.1.2.1: type preference 126 (host), local preference by order, component 1.
            let priority = UInt32(126) << 24 | UInt32(65_535 - min(index, 65_535)) << 8 | 255
            let candidate = SDPCandidate(foundation: String(index + 1), priority: priority, address: host.address, port: host.port)
            out.append(SDPAttribute(SDPCandidate.attributeName, candidate.sdpValue))
        }
        out.append(SDPAttribute("end-of-candidates"))
        return out
    }

    /// The `c=` line value and the `m=` port of the default candidate (the first).
    var defaultDestination: (connection: SDPLine, port: UInt16) {
        let first = candidates[0]
        return (SDPLine("c", "IN \(Self.addressType(first.address)) \(first.address)"), first.port)
    }
}

/// The peer's side of the transport, read from its offer or answer: what the ICE-lite
/// agent checks STUN requests against and what the DTLS handshake checks the peer's
/// certificate against.
public struct SDPRemoteTransport: Sendable, Equatable, Hashable {
    /// The peer's ICE ufrag (the second half of the STUN USERNAME it sends).
    public var iceUfrag: String
    /// The peer's ICE password.
    public var icePwd: String
    /// The digest its DTLS certificate must have.
    public var fingerprint: SDPFingerprint
    /// Its `a=setup` (actpass or active in an offer; active in an answer).
    public var setup: SDPSetupRole

    /// A remote transport.
    public init(iceUfrag: String, icePwd: String, fingerprint: SDPFingerprint, setup: SDPSetupRole) {
        self.iceUfrag = iceUfrag
        self.icePwd = icePwd
        self.fingerprint = fingerprint
        self.setup = setup
    }

    /// Reads the transport of `section` (falling back to session-level attributes), with
    /// the setup roles `allowed`. Throws on `side`.
    static func read(_ section: SDPMediaDescription, in description: SessionDescription, allowed: Set<SDPSetupRole>,
                     side: SDPNegotiationError.Side) throws(SDPNegotiationError) -> SDPRemoteTransport {
        let mid = section.mid
        guard let ufrag = section.iceUfrag ?? description.iceUfrag, let pwd = section.icePwd ?? description.icePwd else {
            throw SDPNegotiationError(side, .missingICECredentials, mid: mid)
        }
        guard let fingerprint = section.fingerprint ?? description.fingerprint else {
            throw SDPNegotiationError(side, .missingFingerprint, mid: mid)
        }
        let lengths = ["sha-256": 32, "sha-384": 48, "sha-512": 64]
        guard lengths[fingerprint.algorithm] == fingerprint.bytes.count else {
            throw SDPNegotiationError(side, .unsupportedFingerprint(fingerprint.algorithm), mid: mid)
        }
        let setup = section.setup ?? description.setup
        guard let setup, allowed.contains(setup) else { throw SDPNegotiationError(side, .unusableSetup(setup), mid: mid) }
        return SDPRemoteTransport(iceUfrag: ufrag, icePwd: pwd, fingerprint: fingerprint, setup: setup)
    }
}
