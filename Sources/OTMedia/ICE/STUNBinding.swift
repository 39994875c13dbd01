/// The two Binding messages ICE needs, written in one call each into a caller's buffer:
/// the success response an ICE-lite server answers a check with, and the check (request)
/// a controlling client sends (RFC 8445 section 7.1.1, 7.2.1; RFC 8489 section 14).
public enum STUNBinding {
    /// The largest Binding success response written here: header 20 + XOR-MAPPED-ADDRESS
    /// (IPv6) 24 + MESSAGE-INTEGRITY 24 + FINGERPRINT 8.
    public static let maximumResponseSize = 76

    /// Writes a Binding success response to the request `transactionID`: XOR-MAPPED-ADDRESS
    /// `mapped` (the request's source), MESSAGE-INTEGRITY keyed by `integrityKey` (the
    /// server's ICE password), FINGERPRINT. Returns the size (64 for IPv4, 76 for IPv6).
    /// Cost: one HMAC-SHA1 and a CRC-32 over ≤ 76 bytes; nothing allocated here (OpenSSL
    /// builds its HMAC context internally).
    public static func writeSuccessResponse(into buffer: UnsafeMutableRawBufferPointer,
                                            transactionID: STUNTransactionID, mapped: SocketAddress,
                                            integrityKey: UnsafeRawBufferPointer) throws(STUNError) -> Int {
        var writer = try STUNWriter(into: buffer, type: .bindingSuccess, transactionID: transactionID)
        try writer.appendXORMappedAddress(mapped)
        try writer.appendMessageIntegrity(key: integrityKey)
        try writer.appendFingerprint()
        return writer.count
    }

    /// Writes an ICE connectivity check from a controlling agent: USERNAME
    /// "<remote ufrag>:<local ufrag>", PRIORITY, ICE-CONTROLLING with `tieBreaker`,
    /// USE-CANDIDATE when `nominate`, MESSAGE-INTEGRITY keyed by the remote password,
    /// FINGERPRINT. Returns the size. Cost: one HMAC-SHA1 and one CRC-32; no allocation
    /// beyond the username's UTF-8 view.
    public static func writeRequest(into buffer: UnsafeMutableRawBufferPointer, transactionID: STUNTransactionID,
                                    username: String, priority: UInt32, tieBreaker: UInt64, nominate: Bool,
                                    integrityKey: UnsafeRawBufferPointer) throws(STUNError) -> Int {
        var writer = try STUNWriter(into: buffer, type: .bindingRequest, transactionID: transactionID)
        try writer.append(.username, text: username)
        try writer.append(.priority, uint32: priority)
        try writer.append(.iceControlling, uint64: tieBreaker)
        if nominate { try writer.appendFlag(.useCandidate) }
        try writer.appendMessageIntegrity(key: integrityKey)
        try writer.appendFingerprint()
        return writer.count
    }
}
