import Testing
import OTMedia

/// Wrap-around comparison and 64-bit extension of sequence numbers and timestamps.
@Suite struct RTPSequenceTests {
    @Test(arguments: [
        (UInt16(1), UInt16(0), true),
        (0, 65535, true),            // across the wrap
        (65535, 0, false),
        (5, 5, false),
        (32767, 0, true),
        (32768, 0, true),            // exactly half: the larger one is newer
        (0, 32768, false),
        (100, 32868, false),         // half apart again: 32868 is the larger, so 100 is not newer
    ] as [(UInt16, UInt16, Bool)])
    func sequenceIsNewer(a: UInt16, b: UInt16, newer: Bool) {
        #expect(RTPSerial.isNewer(a, than: b) == newer)
        if a != b { #expect(RTPSerial.isNewer(a, than: b) != RTPSerial.isNewer(b, than: a), "antisymmetric") }
    }

    @Test func distancesAndTimestamps() {
        #expect(RTPSerial.distance(from: UInt16(65535), to: UInt16(2)) == 3)
        #expect(RTPSerial.distance(from: UInt16(2), to: UInt16(65535)) == -3)
        #expect(RTPSerial.isNewer(UInt32(10), than: UInt32.max - 10))
        #expect(!RTPSerial.isNewer(UInt32.max - 10, than: UInt32(10)))
        #expect(RTPSerial.distance(from: UInt32.max, to: UInt32(0)) == 1)
    }

    @Test(arguments: [
        ([65533, 65534, 65535, 0, 1, 2], [65533, 65534, 65535, 65536, 65537, 65538]),
        // Reordered around the wrap: late packets from before it map back below it.
        ([65534, 1, 65535, 0, 2], [65534, 65537, 65535, 65536, 65538]),
        // A packet older than the first one maps below zero rather than a cycle ahead.
        ([0, 65535, 1], [0, -1, 1]),
        // Steps just under half the space, forward through three wraps.
        ([60000, 20000, 50000, 10000, 40000, 5000], [60000, 85536, 115536, 141072, 171072, 201608]),
    ] as [([UInt16], [Int64])])
    func sequenceUnwrapping(input: [UInt16], expected: [Int64]) {
        var unwrapper = SequenceUnwrapper()
        #expect(unwrapper.lastExtended == nil)
        #expect(input.map { unwrapper.unwrap($0) } == expected)
    }

    @Test func longRunStaysExact() {
        var unwrapper = SequenceUnwrapper()
        var sequence: UInt16 = 65000
        var last: Int64 = 0
        for _ in 0..<300_000 {
            last = unwrapper.unwrap(sequence)
            sequence &+= 1
        }
        #expect(last == 65000 + 299_999)
        // peek does not move the reference.
        #expect(unwrapper.peek(sequence &- 5) == last - 4)
        #expect(unwrapper.lastExtended == last)
    }

    @Test func timestampUnwrapping() {
        var unwrapper = TimestampUnwrapper()
        let values: [UInt32] = [0xFFFF_F000, 0xFFFF_FF00, 0x0000_0100, 0xFFFF_FFF0, 0x0000_1000]
        #expect(values.map { unwrapper.unwrap($0) } == [0xFFFF_F000, 0xFFFF_FF00, 0x1_0000_0100, 0xFFFF_FFF0, 0x1_0000_1000])
    }
}
