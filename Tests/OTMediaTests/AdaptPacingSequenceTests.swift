import Testing
@testable import OTMedia

/// Transport-wide sequence numbers (draft-holmer-rmcat-transport-wide-cc-extensions-01
/// section 2): allocation across the 16-bit wrap and unwrapping of fed-back values.
@Suite struct AdaptPacingSequenceTests {
    struct AllocationCase: Sendable, CustomStringConvertible {
        var start: UInt16
        var count: Int
        var wires: [UInt16]
        var unwrapped: [UInt64]
        var description: String { "start \(start)" }
    }

    static let allocations: [AllocationCase] = [
        AllocationCase(start: 0, count: 3, wires: [0, 1, 2], unwrapped: [0, 1, 2]),
        AllocationCase(start: 65533, count: 5, wires: [65533, 65534, 65535, 0, 1],
                       unwrapped: [65533, 65534, 65535, 65536, 65537]),
        AllocationCase(start: 65535, count: 2, wires: [65535, 0], unwrapped: [65535, 65536]),
    ]

    @Test(arguments: allocations)
    func allocationWrapsOnTheWireButNotUnwrapped(_ row: AllocationCase) {
        var numbers = TransportSequenceNumbers(start: row.start)
        #expect(numbers.last == nil)
        var wires: [UInt16] = []
        var unwrapped: [UInt64] = []
        for _ in 0 ..< row.count {
            let (value, wire) = numbers.allocate()
            wires.append(wire)
            unwrapped.append(value)
        }
        #expect(wires == row.wires)
        #expect(unwrapped == row.unwrapped)
        #expect(numbers.last == row.unwrapped.last)
    }

    /// (wire value fed back, expected unwrapped) after allocating 65530 ... 65539
    /// (wire 65530 ... 65535, 0 ... 3).
    static let unwraps: [(UInt16, UInt64?)] = [
        (3, 65539),      // the newest
        (0, 65536),      // just after the wrap
        (65535, 65535),  // just before it
        (65530, 65530),  // the first allocated
        (65529, nil),    // before the first: never sent
        (4, nil),        // "ahead" of the newest maps a cycle back, before the first
    ]

    @Test(arguments: unwraps)
    func unwrapAgainstTheNewestSent(_ wire: UInt16, _ expected: UInt64?) {
        var numbers = TransportSequenceNumbers(start: 65530)
        for _ in 0 ..< 10 { _ = numbers.allocate() }
        #expect(numbers.unwrap(wire) == expected)
    }

    @Test func unwrapAfterManyCycles() {
        var numbers = TransportSequenceNumbers(start: 100)
        #expect(numbers.unwrap(100) == nil)
        for _ in 0 ..< 200_000 { _ = numbers.allocate() }
        let last = 100 + 200_000 - 1 as UInt64
        #expect(numbers.last == last)
        for back: UInt64 in [0, 1, 100, 65535] {
            #expect(numbers.unwrap(TransportSequenceNumbers.wire(last - back)) == last - back)
        }
    }

    @Test func historyUnwrapsTheSameWay() {
        var history = SentPacketHistory(capacity: 64)
        #expect(history.unwrap(7) == nil)
        history.record(sequenceNumber: 65538, sendNanoseconds: 0, size: 100, kind: .video)
        #expect(history.unwrap(2) == 65538)
        #expect(history.unwrap(65535) == 65535)
        #expect(history.unwrap(3) == 3)  // "ahead" of the newest: a cycle back, never recorded
        #expect(history.packet(3, now: 0) == nil)
    }

    @Test(arguments: [RTPExtensionProfile.oneByte, .twoByte(appBits: 0)], [UInt16(0), 1, 0x1234, 65535])
    func headerExtensionRoundTrip(_ profile: RTPExtensionProfile, _ wire: UInt16) throws {
        var extensions = RTPHeaderExtensions(profile: profile)
        try extensions.append(id: 1, bigEndian: 0xAB, length: 1)  // another element first (e.g. audio level)
        try TransportSequenceNumbers.append(wire, id: 5, to: &extensions)
        var bytes = [UInt8](repeating: 0, count: extensions.size)
        _ = bytes.withUnsafeMutableBytes { extensions.write(into: $0, at: 0) }
        let read = bytes.withUnsafeBytes { raw in
            let elements = RTPHeaderExtensionElements(profile: profile, data: UnsafeRawBufferPointer(rebasing: raw[4...]))
            return (TransportSequenceNumbers.read(from: elements, id: 5), TransportSequenceNumbers.read(from: elements, id: 1),
                    TransportSequenceNumbers.read(from: elements, id: 6))
        }
        #expect(read.0 == wire)
        #expect(read.1 == nil)  // one byte long: not a transport sequence number
        #expect(read.2 == nil)  // absent
    }
}
