import OTMedia

/// Calls `body` with a raw view of `bytes` (test helper around `withUnsafeBytes`).
func withRaw<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes { try body($0) }
}

/// Parses `bytes` as RTP, keeping the typed error.
func parseRTP(_ bytes: [UInt8]) -> Result<RTPHeader, RTPError> {
    bytes.withUnsafeBytes { raw in
        Result { () throws(RTPError) -> RTPHeader in try RTPHeader(RTPPacket(parsing: raw)) }
    }
}

/// Writes `header` (and `payload`, `padding`) into a fresh array.
func writeRTP(_ header: RTPHeader, payload: [UInt8] = [], padding: Int = 0) throws -> [UInt8] {
    var out = [UInt8](repeating: 0xEE, count: header.size + payload.count + padding)
    let written = try out.withUnsafeMutableBytes { buffer in
        try payload.withUnsafeBytes { p in try header.writePacket(payload: p, paddingCount: padding, into: buffer) }
    }
    #if DEBUG
    precondition(written == out.count)
    #endif
    return Array(out[0..<written])
}

/// A deterministic pseudo-random generator (SplitMix64) so random-input tests repeat.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Uniform in [-1, 1).
    mutating func symmetric() -> Double { Double(next() >> 11) / Double(1 << 52) - 1 }
}
