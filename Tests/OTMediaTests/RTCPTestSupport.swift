import Testing
@testable import OTMedia

/// Helpers shared by the RTCP suites: run code over an array's bytes, and write a packet
/// into a fresh array checking that `write(into:)` agrees with `size`.
enum RTCPTestSupport {
    /// Calls `body` with a view of `bytes` (the views it creates must not escape).
    static func with<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try bytes.withUnsafeBytes { try body($0) }
    }

    /// Writes `packet` into an array of exactly `size` bytes; records an issue if the
    /// byte count differs from `size`, and checks that a buffer one byte short is refused.
    static func write(_ packet: some RTCPPacketWriting) throws -> [UInt8] {
        var out = [UInt8](repeating: 0xEE, count: packet.size)
        let written = try out.withUnsafeMutableBytes { try packet.write(into: $0) }
        #expect(written == packet.size)
        if packet.size > 0 {
            var short = [UInt8](repeating: 0, count: packet.size - 1)
            let refused = short.withUnsafeMutableBytes { buffer in Self.error { _ = try packet.write(into: buffer) } }
            #expect(refused == .bufferTooSmall(needed: packet.size, available: packet.size - 1))
        }
        return out
    }

    /// The RTCP error `body` throws, or nil (another error type is recorded as an issue).
    static func error(_ body: () throws -> Void) -> RTCPError? {
        do {
            try body()
            return nil
        } catch let error as RTCPError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    /// Big-endian bytes of a 32-bit value.
    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

extension SplitMix64 {
    /// A value in 0..<bound.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
