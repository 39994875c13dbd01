import OTMedia
import OTTestSupport

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

/// The seeded generator random-input tests use (OTTestSupport's, shared with the router tests).
typealias SplitMix64 = OTTestSupport.SplitMix64
