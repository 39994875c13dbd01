import Testing
@testable import OTMedia

/// Helpers shared by the RTCP suites: write a packet into a fresh array checking that
/// `write(into:)` agrees with `size`, and catch the RTCP error a call throws.
enum RTCPTestSupport {
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
}

extension SplitMix64 {
    /// A value in 0..<bound.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
