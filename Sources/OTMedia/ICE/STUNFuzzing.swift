/// Entry point for the libFuzzer target over the STUN reader and the ICE-lite agent (see
/// `RTCPFuzzing` for how targets are built). The body is here, in the library, so unit
/// tests run the same code over random inputs.
public enum STUNFuzzing {
    /// The credentials of RFC 5769's sample request (section 2.1), so seeds built from the
    /// vectors reach the integrity check and the response writer.
    public static let vectorLocalUfrag = "evtj"
    /// The sample request's sender ufrag.
    public static let vectorRemoteUfrag = "h6vY"
    /// The vectors' password.
    public static let vectorPassword = "VOkJxbRl1RmTxUk/WvJxBt"

    /// The target body: classifies the datagram, parses it, checks FINGERPRINT and
    /// MESSAGE-INTEGRITY, writes a response to whatever parsed and re-parses that (it must
    /// parse and verify: a trap here is a bug), then hands the datagram to an agent
    /// holding the vectors' leg. Returns 1 when the agent answered. Cost: O(input) plus a
    /// few HMACs; a fresh agent per call (its small tables).
    @discardableResult
    public static func run(_ data: UnsafeRawBufferPointer) -> Int {
        _ = PacketClassifier.classify(data)
        let key = Array(vectorPassword.utf8)
        let source = SocketAddress(ipv6: "2001:db8::1", port: 4242)!
        if let message = try? STUNMessage(parsing: data) {
            _ = message.verifyFingerprint(in: data)
            _ = key.withUnsafeBytes { message.verifyIntegrity(in: data, key: $0) }
            roundTrip(message.transactionID, mapped: message.xorMappedAddress ?? source, key: key)
        }
        var agent = ICELiteAgent(maximumLegs: 2)
        let local = try! ICECredentials(ufrag: vectorLocalUfrag, password: vectorPassword)
        try! agent.register(ICELegID(1), local: local, remoteUfrag: vectorRemoteUfrag, now: 0)
        let result = withUnsafeTemporaryAllocation(byteCount: STUNBinding.maximumResponseSize, alignment: 8) { response in
            agent.handle(data, from: source, now: 1, response: response)
        }
        _ = agent.lapse(now: 60_000_000_000)
        if case let .respond(byteCount, _) = result {
            precondition((1 ... STUNBinding.maximumResponseSize).contains(byteCount))
            return 1
        }
        return 0
    }

    /// A response written for `id` must parse back with the same id and address and verify.
    static func roundTrip(_ id: STUNTransactionID, mapped: SocketAddress, key: [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: STUNBinding.maximumResponseSize, alignment: 8) { buffer in
            let size = key.withUnsafeBytes { key in
                try! STUNBinding.writeSuccessResponse(into: buffer, transactionID: id, mapped: mapped, integrityKey: key)
            }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0 ..< size])
            let parsed = try! STUNMessage(parsing: bytes)
            precondition(parsed.transactionID == id && parsed.xorMappedAddress == mapped && parsed.verifyFingerprint(in: bytes))
            precondition(key.withUnsafeBytes { parsed.verifyIntegrity(in: bytes, key: $0) })
        }
    }
}
