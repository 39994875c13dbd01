/// The ICE-lite side of a media port (RFC 8445 section 2.5): a table of legs, each with
/// its local credentials and the remote ufrag from SDP, that answers authenticated STUN
/// Binding requests, follows USE-CANDIDATE nomination and address changes, and reports legs
/// whose consent has lapsed (RFC 7675) without forgetting them: consent comes back with
/// the next valid check.
///
/// Driven by one router worker thread: `handle` for each STUN datagram, `lapse` from its
/// timer, `register`/`remove` as legs come and go. It has no threads, no clock of its own
/// (callers pass monotonic nanoseconds) and no locks; it is a value, moved to the thread
/// that owns it. Bounded: at most `maximumLegs` legs, and `handle` never adds an entry, so
/// unauthenticated input cannot grow it. `handle` allocates nothing on the heap beyond
/// OpenSSL's HMAC context; a leg costs its strings and two table entries.
///
/// Behaviour of `handle`, in order (first failure wins, each drop counted):
/// 1. parse (`malformed`); a Binding request (`notBindingRequest`);
/// 2. FINGERPRINT present and right (`badFingerprint`);
/// 3. USERNAME "<local ufrag>:<remote ufrag>" names a registered leg (`unknownUfrag`);
/// 4. MESSAGE-INTEGRITY present and verified with the leg's local password (`badIntegrity`);
/// 5. no unknown comprehension-required attribute (`unknownAttribute`), the peer not
///    claiming ICE-CONTROLLED (`roleConflict`);
/// 6. answer with a success response (XOR-MAPPED-ADDRESS = the source, MI, FINGERPRINT).
/// A USE-CANDIDATE check selects its source address (`nominated`), or moves the selection
/// there if another address was selected (`moved`). Consent is refreshed by a valid check
/// from the selected address, or by any valid check while none is selected; a check from
/// elsewhere is answered (the peer may be validating a new pair) but refreshes nothing.
/// A refresh of a lapsed leg restores its consent (`ICEEvent.consentRestored`, counted).
public struct ICELiteAgent: Sendable {
    /// A leg's state.
    struct Leg: Sendable {
        let id: ICELegID
        let localUfrag: ICEUfragKey
        let localPassword: [UInt8]
        let remoteUfrag: [UInt8]
        var selected: SocketAddress?
        /// When consent was last refreshed (registration counts as the start).
        var lastConsent: UInt64
        /// True from the `lapse` that found consent older than the timeout until the next
        /// refresh: nothing may be sent to the leg meanwhile.
        var lapsed = false
    }

    /// The most legs the agent holds.
    public let maximumLegs: Int
    /// How long a leg keeps consent after its last valid check (RFC 7675: 30 s).
    public let consentTimeoutNanoseconds: UInt64

    var legs: [ICEUfragKey: Leg] = [:]
    var ufragByLeg: [ICELegID: ICEUfragKey] = [:]
    var legBySelectedAddress: [SocketAddress: ICELegID] = [:]

    /// Answers, nominations, moves, consent lapses and restorations, and drops so far.
    public internal(set) var counters = ICECounters()

    /// An empty agent for at most `maximumLegs` legs; consent lasts
    /// `consentTimeoutNanoseconds` (30 s by default, RFC 7675 section 5.1).
    public init(maximumLegs: Int = 4_096, consentTimeoutNanoseconds: UInt64 = 30_000_000_000) {
        self.maximumLegs = max(0, maximumLegs)
        self.consentTimeoutNanoseconds = consentTimeoutNanoseconds
    }

    /// Legs registered.
    public var legCount: Int { legs.count }

    /// Registers leg `id` answering checks for `local` (the credentials this side put in
    /// its SDP; the ufrag at most 32 bytes) from the peer whose SDP ufrag is `remoteUfrag`.
    /// Its consent clock starts at `now`. Cost: two table inserts and the credential copies.
    public mutating func register(_ id: ICELegID, local: ICECredentials, remoteUfrag: String,
                                  now: UInt64) throws(ICEError) {
        guard ICECredentials.isValid(remoteUfrag, minimum: 4) else { throw .invalidCredentials }
        var ufrag = local.ufrag
        guard let key = ufrag.withUTF8({ ICEUfragKey(UnsafeRawBufferPointer($0)) }) else { throw .invalidCredentials }
        guard ufragByLeg[id] == nil else { throw .duplicateLeg }
        guard legs[key] == nil else { throw .duplicateUfrag }
        guard legs.count < maximumLegs else { throw .tooManyLegs(limit: maximumLegs) }
        legs[key] = Leg(id: id, localUfrag: key, localPassword: Array(local.password.utf8),
                        remoteUfrag: Array(remoteUfrag.utf8), selected: nil, lastConsent: now)
        ufragByLeg[id] = key
    }

    /// Forgets leg `id` (no-op when unknown). Cost: up to three table removals.
    public mutating func remove(_ id: ICELegID) {
        guard let key = ufragByLeg.removeValue(forKey: id), let leg = legs.removeValue(forKey: key) else { return }
        if let address = leg.selected, legBySelectedAddress[address] == id { legBySelectedAddress[address] = nil }
    }

    /// The address leg `id` nominated (where media goes), or nil before nomination.
    public func selectedAddress(of id: ICELegID) -> SocketAddress? {
        ufragByLeg[id].flatMap { legs[$0]?.selected }
    }

    /// The leg whose selected address is `address`: how DTLS, RTP and RTCP from that
    /// address find their leg. An address maps to one leg: if two legs nominate the same
    /// address (one client socket for two legs), the later nomination wins, so such a client
    /// must BUNDLE its legs or use one socket per leg. Cost: one hash lookup.
    public func leg(selectedAt address: SocketAddress) -> ICELegID? { legBySelectedAddress[address] }

    /// Handles one STUN datagram from `source` at `now`: on success writes the response
    /// into `response` (at least `STUNBinding.maximumResponseSize` bytes) and returns its
    /// size with what changed; otherwise the drop reason (counted). See the type's comment
    /// for the order of checks. Cost: parse + CRC-32 + two HMAC-SHA1 for a valid check.
    public mutating func handle(_ datagram: UnsafeRawBufferPointer, from source: SocketAddress, now: UInt64,
                                response: UnsafeMutableRawBufferPointer) -> ICEResult {
        switch check(datagram) {
        case let .failure(reason):
            counters.count(reason)
            return .drop(reason)
        case let .success((key, message)):
            guard response.count >= STUNBinding.maximumResponseSize else {
                counters.count(.responseBufferTooSmall)
                return .drop(.responseBufferTooSmall)
            }
            return answer(key, message, from: source, now: now, response: response)
        }
    }

    /// Steps 1–5: the leg's key and the parsed request, or why not.
    private func check(_ datagram: UnsafeRawBufferPointer) -> Result<(ICEUfragKey, STUNMessage), ICEDropReason> {
        guard case let .success(message) = STUNMessage.read(datagram) else { return .failure(.malformed) }
        guard message.type == .bindingRequest else { return .failure(.notBindingRequest) }
        guard message.verifyFingerprint(in: datagram) else { return .failure(.badFingerprint) }
        guard let username = message.username else { return .failure(.unknownUfrag) }
        let value = datagram.view(username)
        // Index loops, not generic algorithms: unspecialised (debug) generics allocate.
        var colon = 0
        while colon < value.count, value[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < value.count, let key = ICEUfragKey(value.view(0 ..< colon)), let leg = legs[key],
              leg.remoteUfrag.withUnsafeBytes({ Self.equal(value.view(colon + 1 ..< value.count), $0) })
        else { return .failure(.unknownUfrag) }
        guard leg.localPassword.withUnsafeBytes({ message.verifyIntegrity(in: datagram, key: $0) }) else {
            return .failure(.badIntegrity)
        }
        guard message.unknownRequiredCount == 0 else { return .failure(.unknownAttribute) }
        guard message.iceControlled == nil || message.iceControlling != nil else { return .failure(.roleConflict) }
        return .success((key, message))
    }

    /// Byte-wise equality.
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0 ..< a.count where a[index] != b[index] { return false }
        return true
    }

    /// Step 6 and the nomination / consent bookkeeping.
    private mutating func answer(_ key: ICEUfragKey, _ message: STUNMessage, from source: SocketAddress, now: UInt64,
                                 response: UnsafeMutableRawBufferPointer) -> ICEResult {
        guard var leg = legs[key] else {
            counters.count(.unknownUfrag)
            return .drop(.unknownUfrag)
        }
        let written = leg.localPassword.withUnsafeBytes { key in
            try? STUNBinding.writeSuccessResponse(into: response, transactionID: message.transactionID,
                                                  mapped: source, integrityKey: key)
        }
        guard let byteCount = written else {
            counters.count(.responseBufferTooSmall)
            return .drop(.responseBufferTooSmall)
        }
        let change: ICEChange
        switch leg.selected {
        case nil where message.useCandidate:
            change = .nominated
            counters.nominations += 1
        case let previous? where message.useCandidate && previous != source:
            change = .moved(from: previous)
            counters.moves += 1
            if legBySelectedAddress[previous] == leg.id { legBySelectedAddress[previous] = nil }
        default:
            change = .checked
        }
        if change != .checked {
            leg.selected = source
            legBySelectedAddress[source] = leg.id
        }
        var restored = false
        if leg.selected == nil || leg.selected == source {
            leg.lastConsent = now
            if leg.lapsed {
                leg.lapsed = false
                restored = true
                counters.restorations += 1
            }
        }
        legs[key] = leg
        counters.responses += 1
        return .respond(byteCount: byteCount, ICEEvent(leg: leg.id, change: change, consentRestored: restored))
    }
}
