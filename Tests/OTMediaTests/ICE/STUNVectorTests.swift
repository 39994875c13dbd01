import Testing
@testable import OTMedia

/// RFC 5769: the reader decodes and verifies the sample messages, and the writer builds
/// the same attribute lists back byte for byte.
@Suite struct STUNVectorTests {
    let key = Array(STUNTestVectors.password.utf8)

    @Test func sampleRequestParsesAndVerifies() throws {
        let bytes = STUNTestVectors.request
        try withRaw(bytes) { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.type == .bindingRequest)
            #expect(message.transactionID == STUNTestVectors.transactionID)
            #expect(message.priority == 0x6E00_01FF)
            #expect(message.iceControlled == 0x932F_F9B1_5126_3B36)
            #expect(message.iceControlling == nil && !message.useCandidate)
            #expect(message.username.map { Array(raw.view($0)) } == Array("evtj:h6vY".utf8))
            #expect(message.software.map { Array(raw.view($0)) } == Array("STUN test client".utf8))
            #expect(message.verifyFingerprint(in: raw))
            #expect(key.withUnsafeBytes { message.verifyIntegrity(in: raw, key: $0) })
            #expect(!Array("VOkJxbRl1RmTxUk/WvJxBT".utf8).withUnsafeBytes { message.verifyIntegrity(in: raw, key: $0) })
        }
    }

    @Test(arguments: [(STUNTestVectors.ipv4Response, STUNTestVectors.ipv4Mapped),
                      (STUNTestVectors.ipv6Response, STUNTestVectors.ipv6Mapped)])
    func sampleResponsesParseAndVerify(bytes: [UInt8], mapped: SocketAddress) throws {
        try withRaw(bytes) { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.type == .bindingSuccess)
            #expect(message.transactionID == STUNTestVectors.transactionID)
            #expect(message.xorMappedAddress == mapped)
            #expect(message.software.map { Array(raw.view($0)) } == Array("test vector".utf8))
            #expect(message.verifyFingerprint(in: raw))
            #expect(key.withUnsafeBytes { message.verifyIntegrity(in: raw, key: $0) })
        }
    }

    /// Every single-bit flip of a vector fails FINGERPRINT or integrity (or parsing):
    /// the checks cover every byte.
    @Test func everyBitFlipOfTheRequestIsCaught() {
        let original = STUNTestVectors.request
        for index in original.indices {
            for bit in 0 ..< 8 {
                var bytes = original
                bytes[index] ^= UInt8(1) << bit
                let accepted = withRaw(bytes) { raw -> Bool in
                    guard let message = try? STUNMessage(parsing: raw) else { return false }
                    return message.verifyFingerprint(in: raw) && key.withUnsafeBytes { message.verifyIntegrity(in: raw, key: $0) }
                }
                // Padding bytes (the spaces after "evtj:h6vY") are covered by both checks too.
                #expect(!accepted, "flip of bit \(bit) in byte \(index) went unnoticed")
            }
        }
    }

    @Test func writerReproducesTheSampleRequest() throws {
        var out = [UInt8](repeating: 0, count: 256)
        let size = try out.withUnsafeMutableBytes { buffer in
            var writer = try STUNWriter(into: buffer, type: .bindingRequest, transactionID: STUNTestVectors.transactionID,
                                        paddingByte: 0x20)
            try writer.append(.software, text: "STUN test client")
            try writer.append(.priority, uint32: 0x6E00_01FF)
            try writer.append(.iceControlled, uint64: 0x932F_F9B1_5126_3B36)
            try writer.append(.username, text: "evtj:h6vY")
            try key.withUnsafeBytes { key in try writer.appendMessageIntegrity(key: key) }
            try writer.appendFingerprint()
            return writer.count
        }
        #expect(Array(out.prefix(size)) == STUNTestVectors.request)
    }

    @Test(arguments: [(STUNTestVectors.ipv4Response, STUNTestVectors.ipv4Mapped),
                      (STUNTestVectors.ipv6Response, STUNTestVectors.ipv6Mapped)])
    func writerReproducesTheSampleResponses(expected: [UInt8], mapped: SocketAddress) throws {
        var out = [UInt8](repeating: 0, count: 256)
        let size = try out.withUnsafeMutableBytes { buffer in
            var writer = try STUNWriter(into: buffer, type: .bindingSuccess, transactionID: STUNTestVectors.transactionID,
                                        paddingByte: 0x20)
            try writer.append(.software, text: "test vector")
            try writer.appendXORMappedAddress(mapped)
            try key.withUnsafeBytes { key in try writer.appendMessageIntegrity(key: key) }
            try writer.appendFingerprint()
            return writer.count
        }
        #expect(Array(out.prefix(size)) == expected)
    }

    /// The one-call response (no SOFTWARE) and request writers produce what the reader
    /// accepts with the right fields, for IPv4 and IPv6, and use no more than the documented size.
    @Test(arguments: [STUNTestVectors.ipv4Mapped, STUNTestVectors.ipv6Mapped])
    func bindingWritersRoundTrip(mapped: SocketAddress) throws {
        var out = [UInt8](repeating: 0, count: STUNBinding.maximumResponseSize)
        let size = try out.withUnsafeMutableBytes { buffer in
            try key.withUnsafeBytes { key in
                try STUNBinding.writeSuccessResponse(into: buffer, transactionID: STUNTestVectors.transactionID,
                                                     mapped: mapped, integrityKey: key)
            }
        }
        #expect(size == (mapped.family == .ipv6 ? 76 : 64))
        try withRaw(Array(out.prefix(size))) { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.type == .bindingSuccess && message.xorMappedAddress == mapped)
            #expect(message.verifyFingerprint(in: raw) && key.withUnsafeBytes { message.verifyIntegrity(in: raw, key: $0) })
        }
        var request = [UInt8](repeating: 0, count: 128)
        let requestSize = try request.withUnsafeMutableBytes { buffer in
            try key.withUnsafeBytes { key in
                try STUNBinding.writeRequest(into: buffer, transactionID: STUNTestVectors.transactionID, username: "evtj:h6vY",
                                             priority: 7, tieBreaker: 0x0102_0304_0506_0708, nominate: true, integrityKey: key)
            }
        }
        try withRaw(Array(request.prefix(requestSize))) { raw in
            let message = try STUNMessage(parsing: raw)
            #expect(message.type == .bindingRequest && message.useCandidate && message.priority == 7)
            #expect(message.iceControlling == 0x0102_0304_0506_0708 && message.iceControlled == nil)
            #expect(message.verifyFingerprint(in: raw) && key.withUnsafeBytes { message.verifyIntegrity(in: raw, key: $0) })
        }
    }

    @Test func writerRefusesABufferThatIsTooSmall() throws {
        var out = [UInt8](repeating: 0, count: 60)
        _ = out.withUnsafeMutableBytes { buffer in
            #expect(throws: STUNError.bufferTooSmall(needed: 68, available: 60)) {
                try key.withUnsafeBytes { key in
                    _ = try STUNBinding.writeSuccessResponse(into: buffer, transactionID: STUNTestVectors.transactionID,
                                                             mapped: STUNTestVectors.ipv6Mapped, integrityKey: key)
                }
            }
        }
    }

    @Test func crc32CheckValueAndMessageTypeEncoding() {
        #expect(withRaw(Array("123456789".utf8)) { STUNCRC32.checksum($0) } == 0xCBF4_3926)
        #expect(STUNMessageType.bindingRequest.wireValue == 0x0001)
        #expect(STUNMessageType.bindingSuccess.wireValue == 0x0101)
        #expect(STUNMessageType.bindingError.wireValue == 0x0111)
        #expect(STUNMessageType(method: 0x001, messageClass: .indication).wireValue == 0x0011)
        for wire in [UInt16(0x0001), 0x0101, 0x0111, 0x0011, 0x3EEF, 0x0003, 0x0113] {
            #expect(STUNMessageType(wireValue: wire).wireValue == wire)
        }
    }
}
