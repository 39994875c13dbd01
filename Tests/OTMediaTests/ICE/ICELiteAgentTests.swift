import Testing
@testable import OTMedia

/// The ICE-lite agent's table: who gets an answer, what nomination selects, when a
/// selection moves, when consent lapses and comes back, and how much the table may hold.
@Suite struct ICELiteAgentTests {
    static let local = try! ICECredentials(ufrag: "Rtr1", password: "routerPasswordRouterPass")
    static let remoteUfrag = "brws"
    static let second = SocketAddress(ipv4: "192.0.2.7", port: 50_000)!
    static let first = SocketAddress(ipv4: "192.0.2.7", port: 40_000)!
    static let second6 = SocketAddress(ipv6: "2001:db8::7", port: 40_000)!
    static let seconds: UInt64 = 1_000_000_000

    /// A check as a browser sends it: USERNAME "<router ufrag>:<browser ufrag>", signed with
    /// the router's password, then `edit` may break it.
    static func check(username: String = "Rtr1:brws", password: String = "routerPasswordRouterPass",
                      nominate: Bool = false, controlled: Bool = false, extra: UInt16? = nil,
                      type: STUNMessageType = .bindingRequest, edit: (inout [UInt8]) -> Void = { _ in }) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 200)
        let size = out.withUnsafeMutableBytes { buffer in
            var writer = try! STUNWriter(into: buffer, type: type, transactionID: .random())
            try! writer.append(.username, text: username)
            try! writer.append(.priority, uint32: 0x6E00_1EFF)
            try! writer.append(controlled ? .iceControlled : .iceControlling, uint64: 42)
            if nominate { try! writer.appendFlag(.useCandidate) }
            if let extra { try! writer.append(STUNAttributeType(rawValue: extra), uint32: 1) }
            try! Array(password.utf8).withUnsafeBytes { key in try writer.appendMessageIntegrity(key: key) }
            try! writer.appendFingerprint()
            return writer.count
        }
        var bytes = Array(out.prefix(size))
        edit(&bytes)
        return bytes
    }

    static func agent(maximumLegs: Int = 8) -> ICELiteAgent {
        var agent = ICELiteAgent(maximumLegs: maximumLegs)
        try! agent.register(ICELegID(7), local: local, remoteUfrag: remoteUfrag, now: 0)
        return agent
    }

    /// Runs `datagram` through `agent`; on an answer, checks the response is a signed
    /// Binding success for the request with the source as XOR-MAPPED-ADDRESS.
    static func handle(_ agent: inout ICELiteAgent, _ datagram: [UInt8], from source: SocketAddress,
                       now: UInt64) -> ICEResult {
        var response = [UInt8](repeating: 0, count: STUNBinding.maximumResponseSize)
        let result = datagram.withUnsafeBytes { raw in
            response.withUnsafeMutableBytes { agent.handle(raw, from: source, now: now, response: $0) }
        }
        if case let .respond(byteCount, _) = result {
            let request = datagram.withUnsafeBytes { try! STUNMessage(parsing: $0) }
            withRaw(Array(response.prefix(byteCount))) { raw in
                let message = try? STUNMessage(parsing: raw)
                #expect(message?.type == .bindingSuccess)
                #expect(message?.transactionID == request.transactionID)
                #expect(message?.xorMappedAddress == source)
                #expect(message?.verifyFingerprint(in: raw) == true)
                #expect(Array(local.password.utf8).withUnsafeBytes { message?.verifyIntegrity(in: raw, key: $0) } == true)
            }
        }
        return result
    }

    static let drops: [(String, [UInt8], ICEDropReason)] = [
        ("unknown local ufrag", check(username: "Nope:brws"), .unknownUfrag),
        ("right local, wrong remote ufrag", check(username: "Rtr1:othr"), .unknownUfrag),
        ("local ufrag longer than any key", check(username: String(repeating: "R", count: 40) + ":brws"), .unknownUfrag),
        ("no colon", check(username: "Rtr1brws"), .unknownUfrag),
        ("wrong password", check(password: "notTheRoutersPassword!!"), .badIntegrity),
        ("MI byte changed, FINGERPRINT recomputed", check { bytes in
            bytes[bytes.count - 12] ^= 1
            let crc = withRaw(Array(bytes.prefix(bytes.count - 8))) { STUNCRC32.fingerprint($0) }
            bytes.replaceSubrange(bytes.count - 4 ..< bytes.count,
                                  with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        }, .badIntegrity),
        ("bad FINGERPRINT", check { $0[$0.count - 1] ^= 0x80 }, .badFingerprint),
        ("no FINGERPRINT", check { bytes in
            bytes.removeLast(8)
            bytes[3] -= 8
        }, .badFingerprint),
        ("a Binding response", check(type: .bindingSuccess), .notBindingRequest),
        ("a Binding indication", check(type: STUNMessageType(method: 1, messageClass: .indication)), .notBindingRequest),
        ("another method (Allocate)", check(type: STUNMessageType(method: 3, messageClass: .request)), .notBindingRequest),
        ("unknown comprehension-required attribute", check(extra: 0x7ABC), .unknownAttribute),
        ("peer claims to be controlled", check(controlled: true), .roleConflict),
        ("truncated", Array(check().prefix(30)), .malformed),
        ("DTLS, not STUN", [0x16, 0xFE, 0xFD] + [UInt8](repeating: 0, count: 30), .malformed),
    ]

    @Test(arguments: drops)
    func droppedAndCounted(name: String, datagram: [UInt8], reason: ICEDropReason) {
        var agent = Self.agent()
        #expect(Self.handle(&agent, datagram, from: Self.first, now: 1) == .drop(reason), "\(name)")
        #expect(agent.counters.drops(reason) == 1)
        #expect(agent.counters.totalDrops == 1 && agent.counters.responses == 0)
        #expect(agent.selectedAddress(of: ICELegID(7)) == nil)
        #expect(agent.legCount == 1)
    }

    @Test func unknownOptionalAttributeIsAnswered() {
        var agent = Self.agent()
        let result = Self.handle(&agent, Self.check(extra: 0xC057), from: Self.first, now: 1)
        #expect(result == .respond(byteCount: 64, ICEEvent(leg: ICELegID(7), change: .checked)))
    }

    @Test func nominationSelectsAndAMoveNeedsANomination() {
        var agent = Self.agent()
        let leg = ICELegID(7)
        // A plain check is answered but selects nothing.
        #expect(Self.handle(&agent, Self.check(), from: Self.first, now: 1)
            == .respond(byteCount: 64, ICEEvent(leg: leg, change: .checked)))
        #expect(agent.selectedAddress(of: leg) == nil && agent.leg(selectedAt: Self.first) == nil)
        // USE-CANDIDATE selects its source.
        #expect(Self.handle(&agent, Self.check(nominate: true), from: Self.first, now: 2)
            == .respond(byteCount: 64, ICEEvent(leg: leg, change: .nominated)))
        #expect(agent.selectedAddress(of: leg) == Self.first && agent.leg(selectedAt: Self.first) == leg)
        // The same nomination again changes nothing.
        #expect(Self.handle(&agent, Self.check(nominate: true), from: Self.first, now: 3)
            == .respond(byteCount: 64, ICEEvent(leg: leg, change: .checked)))
        // A check without USE-CANDIDATE from elsewhere is answered, the selection stays.
        #expect(Self.handle(&agent, Self.check(), from: Self.second, now: 4)
            == .respond(byteCount: 64, ICEEvent(leg: leg, change: .checked)))
        #expect(agent.selectedAddress(of: leg) == Self.first && agent.leg(selectedAt: Self.second) == nil)
        // A nominated check from the new address moves it (IPv6 here: 76-byte response).
        #expect(Self.handle(&agent, Self.check(nominate: true), from: Self.second6, now: 5)
            == .respond(byteCount: 76, ICEEvent(leg: leg, change: .moved(from: Self.first))))
        #expect(agent.selectedAddress(of: leg) == Self.second6)
        #expect(agent.leg(selectedAt: Self.second6) == leg && agent.leg(selectedAt: Self.first) == nil)
        #expect(agent.counters.nominations == 1 && agent.counters.moves == 1 && agent.counters.responses == 5)
    }

    /// When consent lapses, seconds after the last valid check from the selected address
    /// (plus nanoseconds): 30 s exactly is still within consent.
    static let lapseTable: [(after: UInt64, extraNanoseconds: UInt64, lapses: Bool)] = [
        (29, 0, false), (30, 0, false), (30, 1, true), (45, 0, true),
    ]

    /// RFC 7675 with an injected clock: consent lasts 30 s after the last valid check from
    /// the selected address; checks from elsewhere and badly signed ones do not refresh it.
    /// A lapsed leg is not removed: its address and credentials stay.
    @Test(arguments: lapseTable)
    func consentLapsesThirtySecondsAfterTheLastValidCheck(after: UInt64, extraNanoseconds: UInt64, lapses: Bool) {
        var agent = Self.agent()
        let leg = ICELegID(7)
        let s = Self.seconds
        _ = Self.handle(&agent, Self.check(nominate: true), from: Self.first, now: 10 * s)
        _ = Self.handle(&agent, Self.check(), from: Self.first, now: 20 * s)       // refresh: last = 20 s
        _ = Self.handle(&agent, Self.check(), from: Self.second, now: 25 * s)      // elsewhere: no refresh
        _ = Self.handle(&agent, Self.check(password: "wrongPasswordWrongPassw"), from: Self.first, now: 26 * s)
        let now = (20 + after) * s + extraNanoseconds
        #expect(agent.lapse(now: now) == (lapses ? [leg] : []), "\(after) s + \(extraNanoseconds) ns")
        #expect(agent.hasConsent(leg) == !lapses)
        #expect(agent.counters.lapses == (lapses ? 1 : 0))
        // Lapsed or not, the leg stays with its selection.
        #expect(agent.legCount == 1 && agent.selectedAddress(of: leg) == Self.first && agent.leg(selectedAt: Self.first) == leg)
    }

    /// What a check after a lapse does: (name, check, source, whether it restores consent).
    static let afterLapse: [(name: String, check: [UInt8], from: SocketAddress, restores: Bool)] = [
        ("valid check from the selected address", check(), first, true),
        ("badly signed check from the selected address", check(password: "wrongPasswordWrongPassw"), first, false),
        ("valid check from elsewhere, not nominating", check(), second, false),
        ("valid nomination from elsewhere (a new path)", check(nominate: true), second, true),
    ]

    /// A lapse is reported once; a valid check from the selected address (or a new
    /// nomination) restores consent on the same leg and says so; a badly signed check or
    /// one from elsewhere does not. A restored leg can lapse again (counted again).
    @Test(arguments: afterLapse)
    func aLapseIsReportedOnceAndAValidCheckRestoresConsent(name: String, check: [UInt8], from source: SocketAddress, restores: Bool) {
        var agent = Self.agent()
        let leg = ICELegID(7)
        let s = Self.seconds
        _ = Self.handle(&agent, Self.check(nominate: true), from: Self.first, now: 10 * s)
        #expect(agent.lapse(now: 41 * s) == [leg])
        #expect(agent.lapse(now: 42 * s).isEmpty, "reported once")
        #expect(agent.lapse(now: 90 * s).isEmpty, "still once")
        let result = Self.handle(&agent, check, from: source, now: 100 * s)
        if case let .respond(_, event) = result {
            #expect(event.consentRestored == restores, "\(name)")
        } else {
            #expect(!restores, "\(name): \(result)")
        }
        #expect(agent.hasConsent(leg) == restores, "\(name)")
        #expect(agent.counters.restorations == (restores ? 1 : 0), "\(name)")
        #expect(agent.lapse(now: 101 * s).isEmpty)
        #expect(agent.lapse(now: 131 * s) == (restores ? [leg] : []), "\(name): a restored leg lapses again")
        #expect(agent.counters.lapses == (restores ? 2 : 1), "\(name)")
        #expect(agent.legCount == 1)
    }

    @Test func aLegNeverCheckedLapsesFromItsRegistration() {
        var agent = ICELiteAgent()
        try! agent.register(ICELegID(1), local: Self.local, remoteUfrag: "brws", now: 100 * Self.seconds)
        #expect(agent.lapse(now: 129 * Self.seconds).isEmpty)
        #expect(agent.hasConsent(ICELegID(1)))
        #expect(agent.lapse(now: 131 * Self.seconds) == [ICELegID(1)])
        #expect(!agent.hasConsent(ICELegID(1)) && agent.legCount == 1)
        #expect(!agent.hasConsent(ICELegID(2)), "an unknown leg has no consent")
    }

    @Test func legCapDuplicatesAndRemoval() throws {
        var agent = ICELiteAgent(maximumLegs: 3)
        for index in 0 ..< 3 {
            try agent.register(ICELegID(UInt64(index)), local: .generate(), remoteUfrag: "brws", now: 0)
        }
        #expect(throws: ICEError.tooManyLegs(limit: 3)) {
            try agent.register(ICELegID(9), local: .generate(), remoteUfrag: "brws", now: 0)
        }
        agent.remove(ICELegID(1))
        try agent.register(ICELegID(9), local: Self.local, remoteUfrag: "brws", now: 0)
        #expect(throws: ICEError.duplicateLeg) { try agent.register(ICELegID(9), local: .generate(), remoteUfrag: "brws", now: 0) }
        agent.remove(ICELegID(0))
        #expect(throws: ICEError.duplicateUfrag) { try agent.register(ICELegID(10), local: Self.local, remoteUfrag: "brws", now: 0) }
        #expect(throws: ICEError.invalidCredentials) {
            try agent.register(ICELegID(10), local: .generate(), remoteUfrag: "br", now: 0)
        }
        let long = try ICECredentials(ufrag: String(repeating: "u", count: 33), password: "routerPasswordRouterPass")
        #expect(throws: ICEError.invalidCredentials) { try agent.register(ICELegID(10), local: long, remoteUfrag: "brws", now: 0) }
        #expect(agent.legCount == 2)
        agent.remove(ICELegID(12345))   // unknown: no-op
        #expect(agent.legCount == 2)
    }

    /// Unauthenticated input never adds a leg or an address, however many distinct
    /// usernames and sources it comes with.
    @Test func unauthenticatedFloodDoesNotGrowTheTable() {
        var agent = Self.agent()
        for index in 0 ..< 2_000 {
            let source = SocketAddress(ipv4: "198.51.100.\(index % 250)", port: UInt16(1_000 + index))!
            _ = Self.handle(&agent, Self.check(username: "u\(index):brws", nominate: true), from: source, now: 1)
            _ = Self.handle(&agent, Self.check(password: "guessedPasswordNumber\(index)", nominate: true), from: source, now: 1)
        }
        #expect(agent.legCount == 1 && agent.legBySelectedAddress.isEmpty && agent.legs.count == 1)
        #expect(agent.counters.drops(.unknownUfrag) == 2_000 && agent.counters.drops(.badIntegrity) == 2_000)
    }

    @Test func responseBufferTooSmallIsADrop() {
        var agent = Self.agent()
        var small = [UInt8](repeating: 0, count: 40)
        let result = Self.check().withUnsafeBytes { raw in
            small.withUnsafeMutableBytes { agent.handle(raw, from: Self.first, now: 1, response: $0) }
        }
        #expect(result == .drop(.responseBufferTooSmall) && agent.counters.drops(.responseBufferTooSmall) == 1)
    }

    @Test func generatedCredentialsAreValidAndDistinct() throws {
        var seen = Set<String>()
        for _ in 0 ..< 200 {
            let credentials = ICECredentials.generate()
            #expect(credentials.ufrag.utf8.count == 8 && credentials.password.utf8.count == 24)
            #expect(ICECredentials.isValid(credentials.ufrag, minimum: 4) && ICECredentials.isValid(credentials.password, minimum: 22))
            seen.insert(credentials.ufrag + credentials.password)
        }
        #expect(seen.count == 200)
        #expect(throws: ICEError.invalidCredentials) { try ICECredentials(ufrag: "abc", password: "routerPasswordRouterPass") }
        #expect(throws: ICEError.invalidCredentials) { try ICECredentials(ufrag: "abcd", password: "short") }
        #expect(throws: ICEError.invalidCredentials) { try ICECredentials(ufrag: "ab:d", password: "routerPasswordRouterPass") }
        _ = try ICECredentials(ufrag: "a+/9", password: "routerPasswordRouterPa")
    }
}
