import OTTestSupport
import Testing
@testable import OTMedia

/// Bytes no STUN peer should send: each is refused with its own error, and random
/// datagrams never trap the reader or the agent.
@Suite struct STUNHostileInputTests {
    /// A Binding request header (transaction id of the vectors) with `length` and `body`.
    static func message(length: Int? = nil, cookie: UInt32 = STUN.magicCookie, type: UInt16 = 0x0001,
                        _ body: [UInt8] = []) -> [UInt8] {
        let length = length ?? body.count
        var bytes: [UInt8] = [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        bytes += [UInt8(cookie >> 24), UInt8(cookie >> 16 & 0xFF), UInt8(cookie >> 8 & 0xFF), UInt8(cookie & 0xFF)]
        bytes += Array(STUNTestVectors.request[8 ..< 20])
        return bytes + body
    }

    /// An attribute: type, length, value, zero padding.
    static func attribute(_ type: UInt16, _ value: [UInt8], declaredLength: Int? = nil) -> [UInt8] {
        let length = declaredLength ?? value.count
        return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + value
            + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }

    static let cases: [(String, [UInt8], STUNError)] = [
        ("empty", [], .truncatedHeader(available: 0)),
        ("truncated header", Array(STUNTestVectors.request.prefix(19)), .truncatedHeader(available: 19)),
        ("top bits set (RTP-like)", message(type: 0x8001), .notSTUN),
        ("wrong cookie", message(cookie: 0x2112_A443), .badMagicCookie(0x2112_A443)),
        ("RFC 3489 (no cookie)", message(cookie: 0), .badMagicCookie(0)),
        ("length not a multiple of 4", message(length: 6, [0, 0x25, 0, 0, 0, 0]), .lengthNotMultipleOfFour(6)),
        ("length past the datagram", message(length: 8, attribute(0x0025, [])), .lengthMismatch(declared: 8, available: 4)),
        ("length short of the datagram", message(length: 0, attribute(0x0025, [])), .lengthMismatch(declared: 0, available: 4)),
        ("attribute length past end", message(attribute(0x0006, [0x61, 0x62, 0x63, 0x64], declaredLength: 9)),
         .attributeOverrun(type: 0x0006, offset: 20)),
        ("unknown optional attribute length past end", message(attribute(0xC057, [1, 2, 3, 4], declaredLength: 0xFFFF)),
         .attributeOverrun(type: 0xC057, offset: 20)),
        ("oversized USERNAME", message(attribute(0x0006, [UInt8](repeating: 0x61, count: 516))), .malformedAttribute(type: 0x0006)),
        ("MI of 19 bytes", message(attribute(0x0008, [UInt8](repeating: 1, count: 19))), .malformedAttribute(type: 0x0008)),
        ("MI of 32 bytes (SHA-256 size)", message(attribute(0x0008, [UInt8](repeating: 1, count: 32))), .malformedAttribute(type: 0x0008)),
        ("FINGERPRINT of 8 bytes", message(attribute(0x8028, [UInt8](repeating: 1, count: 8))), .malformedAttribute(type: 0x8028)),
        ("FINGERPRINT not last", message(attribute(0x8028, [1, 2, 3, 4]) + attribute(0x0025, [])), .fingerprintNotLast),
        ("PRIORITY of 2 bytes", message(attribute(0x0024, [1, 2])), .malformedAttribute(type: 0x0024)),
        ("USE-CANDIDATE with a value", message(attribute(0x0025, [1, 2, 3, 4])), .malformedAttribute(type: 0x0025)),
        ("ICE-CONTROLLING of 4 bytes", message(attribute(0x802A, [1, 2, 3, 4])), .malformedAttribute(type: 0x802A)),
        ("ICE-CONTROLLED of 12 bytes", message(attribute(0x8029, [UInt8](repeating: 1, count: 12))), .malformedAttribute(type: 0x8029)),
        ("XOR-MAPPED-ADDRESS family 3", message(attribute(0x0020, [0, 3, 0, 0, 1, 2, 3, 4])), .malformedAttribute(type: 0x0020)),
        ("XOR-MAPPED-ADDRESS IPv6 family with 8 bytes", message(attribute(0x0020, [0, 2, 0, 0, 1, 2, 3, 4])),
         .malformedAttribute(type: 0x0020)),
        ("ERROR-CODE class 7", message(attribute(0x0009, [0, 0, 7, 0])), .malformedAttribute(type: 0x0009)),
        ("ERROR-CODE number 100", message(attribute(0x0009, [0, 0, 4, 100])), .malformedAttribute(type: 0x0009)),
        ("33 attributes", message([[UInt8]](repeating: attribute(0x8022, []), count: 33).flatMap { $0 }), .tooManyAttributes),
        ("over 1,500 bytes", message(attribute(0x8022, [UInt8](repeating: 0x20, count: 1_480))), .tooLarge(1_504)),
    ]

    @Test(arguments: cases)
    func refused(name: String, bytes: [UInt8], expected: STUNError) {
        _ = withRaw(bytes) { raw in
            #expect(throws: expected, "\(name)") { try STUNMessage(parsing: raw) }
        }
    }

    /// What the reader tolerates on purpose: unknown optional attributes are skipped, unknown
    /// required ones counted, attributes after MESSAGE-INTEGRITY (other than FINGERPRINT) ignored.
    @Test func toleratedOddities() throws {
        let optional = Self.message(Self.attribute(0xC057, [0, 1, 0, 10]) + Self.attribute(0x0024, [0, 0, 0, 9]))
        try withRaw(optional) { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.priority == 9 && message.unknownRequiredCount == 0 && message.attributeCount == 2)
        }
        let required = Self.message(Self.attribute(0x7FFF, [1]) + Self.attribute(0x001C, [UInt8](repeating: 0, count: 32)))
        try withRaw(required) { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.unknownRequiredCount == 2 && message.firstUnknownRequired?.rawValue == 0x7FFF)
        }
        let afterIntegrity = Self.message(Self.attribute(0x0008, [UInt8](repeating: 0, count: 20))
            + Self.attribute(0x0024, [1, 2]) + Self.attribute(0x0025, []))
        try withRaw(afterIntegrity) { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.integrityOffset == 20 && message.priority == nil && !message.useCandidate)
            #expect(!message.verifyFingerprint(in: raw))
        }
    }

    /// 1,000,000 random datagrams (half of them starting from a valid request with a few
    /// bytes changed, so the walk goes deep): nothing traps, and every one that the agent
    /// answers is a correctly signed Binding request for the leg, which random changes
    /// essentially never produce.
    @Test func aMillionRandomDatagramsNeverTrap() {
        var random = SplitMix64(seed: 0x5354_554E)
        var agent = ICELiteAgent(maximumLegs: 1)
        let local = try! ICECredentials(ufrag: STUNFuzzing.vectorLocalUfrag, password: STUNFuzzing.vectorPassword)
        try! agent.register(ICELegID(1), local: local, remoteUfrag: STUNFuzzing.vectorRemoteUfrag, now: 0)
        let source = SocketAddress.ipv4Loopback(port: 9)
        var parsed = 0
        var response = [UInt8](repeating: 0, count: STUNBinding.maximumResponseSize)
        var bytes = [UInt8](repeating: 0, count: 256)
        for round in 0 ..< 1_000_000 {
            let count: Int
            if round % 2 == 0 {
                count = Int(random.next() % 257)
                for index in 0 ..< count { bytes[index] = UInt8(truncatingIfNeeded: random.next()) }
                if count > 8, round % 4 == 0 {   // a plausible header, so the attribute walk runs
                    bytes[0] = 0; bytes[1] = 1
                    bytes[2] = 0; bytes[3] = UInt8((count - 20) & 0xFC)
                    bytes[4] = 0x21; bytes[5] = 0x12; bytes[6] = 0xA4; bytes[7] = 0x42
                }
            } else {
                let vector = STUNTestVectors.request
                count = vector.count
                for index in 0 ..< count { bytes[index] = vector[index] }
                for _ in 0 ..< 1 + Int(random.next() % 3) {
                    bytes[Int(random.next() % UInt64(count))] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            bytes.withUnsafeBytes { raw in
                let datagram = UnsafeRawBufferPointer(rebasing: raw[0 ..< count])
                if (try? STUNMessage(parsing: datagram)) != nil { parsed += 1 }
                response.withUnsafeMutableBytes { out in
                    if case .respond = agent.handle(datagram, from: source, now: 1, response: out) {
                        Issue.record("a random datagram was answered: \(Array(datagram))")
                    }
                }
            }
        }
        #expect(parsed > 1_000, "the random inputs should reach the attribute walk")
        #expect(agent.counters.totalDrops == 1_000_000)
        #expect(agent.counters.drops(.badFingerprint) > 100)
    }
}
