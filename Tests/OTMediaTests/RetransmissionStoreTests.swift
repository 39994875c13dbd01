import Testing
@testable import OTMedia

@Suite struct RetransmissionStoreTests {
    /// RTP-shaped packets: sequence number in bytes 2–3, a payload byte that names them.
    private func packets(_ sequences: [UInt16], pool: PacketBufferPool) -> [PacketBuffer] {
        sequences.map { sequence in
            let buffer = pool.take()!
            let bytes = buffer.writableBytes
            bytes[0] = 0x80; bytes[1] = 96
            bytes[2] = UInt8(sequence >> 8); bytes[3] = UInt8(sequence & 0xFF)
            bytes[4] = UInt8(truncatingIfNeeded: sequence &* 7)
            buffer.setLength(5)
            return buffer
        }
    }

    @Test func nackedPacketsAreCopiedOutAndResendsThrottled() {
        let pool = PacketBufferPool(initialCount: 16)
        let store = RetransmissionStore(capacity: 8, minimumResendIntervalNanoseconds: 10)
        store.store(packets(Array(0..<8), pool: pool))
        let out = pool.take()!
        #expect(store.copy(sequence: 3, now: 100, into: out))
        #expect(Array(out.bytes) == [0x80, 96, 0, 3, 21], "the stored bytes, unchanged")
        #expect(!store.copy(sequence: 3, now: 105, into: out), "resent 5 ns ago")
        #expect(store.copy(sequence: 3, now: 110, into: out))
        let statistics = store.statistics
        #expect(statistics.throttled == 1 && statistics.resent == 2 && statistics.requested == 3)
    }

    @Test func oldPacketsAreOverwrittenAcrossTheSequenceWrap() {
        let pool = PacketBufferPool(initialCount: 16)
        let store = RetransmissionStore(capacity: 4)
        store.store(packets([65534, 65535, 0, 1, 2, 3], pool: pool))
        let out = pool.take()!
        #expect(!store.copy(sequence: 65534, now: 0, into: out), "its slot now holds 2")
        #expect(store.copy(sequence: 2, now: 0, into: out))
        #expect(out.bytes[3] == 2)
        #expect(store.statistics.missing == 1)
    }
}
