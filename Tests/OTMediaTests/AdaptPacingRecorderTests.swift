import Testing
@testable import OTMedia

/// `TransportFeedbackRecorder`: arrivals in, transport-wide feedback out, and back through
/// `TransportFeedbackAdapter` on the sender's side
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1).
@Suite struct AdaptPacingRecorderTests {
    static let ms: UInt64 = 1_000_000

    /// One arrival: wire number and arrival in ms.
    struct Arrival {
        var wire: UInt16
        var milliseconds: UInt64
    }

    /// Builds one feedback from `recorder` and parses its statuses as (number, received).
    static func feedback(_ recorder: inout TransportFeedbackRecorder, now: UInt64) throws -> [(UInt16, Bool)] {
        var bytes = [UInt8](repeating: 0, count: 1500)
        let size = bytes.withUnsafeMutableBytes { recorder.buildFeedback(senderSSRC: 7, mediaSSRC: 9, now: now, into: $0) }
        guard size > 0 else { return [] }
        return try withRaw(Array(bytes[0 ..< size])) { view in
            let parsed = try TransportWideCCFeedback(parsing: view)
            #expect(parsed.senderSSRC == 7)
            #expect(parsed.mediaSSRC == 9)
            return parsed.packets.map { ($0.sequenceNumber, $0.isReceived) }
        }
    }

    struct Case: CustomTestStringConvertible {
        var name: String
        /// Batches of arrivals; a feedback is built after each batch.
        var batches: [[Arrival]]
        /// Expected statuses per feedback (number, received).
        var expected: [[(UInt16, Bool)]]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "in order, one feedback",
             batches: [[Arrival(wire: 10, milliseconds: 1), Arrival(wire: 11, milliseconds: 2)]],
             expected: [[(10, true), (11, true)]]),
        Case(name: "a gap inside a feedback is lost",
             batches: [[Arrival(wire: 10, milliseconds: 1), Arrival(wire: 13, milliseconds: 4)]],
             expected: [[(10, true), (11, false), (12, false), (13, true)]]),
        Case(name: "a loss just before the next feedback's first arrival is reported (the last one repeats)",
             batches: [[Arrival(wire: 10, milliseconds: 1)], [Arrival(wire: 12, milliseconds: 60)]],
             expected: [[(10, true)], [(10, true), (11, false), (12, true)]]),
        Case(name: "reordered within a feedback comes out in number order",
             batches: [[Arrival(wire: 5, milliseconds: 1), Arrival(wire: 7, milliseconds: 2),
                        Arrival(wire: 6, milliseconds: 3)]],
             expected: [[(5, true), (6, true), (7, true)]]),
        Case(name: "across the 16-bit wrap",
             batches: [[Arrival(wire: 65534, milliseconds: 1), Arrival(wire: 65535, milliseconds: 2)],
                       [Arrival(wire: 1, milliseconds: 55)]],
             expected: [[(65534, true), (65535, true)], [(65535, true), (0, false), (1, true)]]),
        Case(name: "a packet behind the last reported one is late and dropped",
             batches: [[Arrival(wire: 20, milliseconds: 1), Arrival(wire: 21, milliseconds: 2)],
                       [Arrival(wire: 19, milliseconds: 51)]],
             expected: [[(20, true), (21, true)], []]),
        Case(name: "a duplicate arrival is reported once",
             batches: [[Arrival(wire: 3, milliseconds: 1), Arrival(wire: 3, milliseconds: 2),
                        Arrival(wire: 4, milliseconds: 3)]],
             expected: [[(3, true), (4, true)]]),
        Case(name: "a pause over the largest delta (8.19 s) starts afresh",
             batches: [[Arrival(wire: 1, milliseconds: 1)], [Arrival(wire: 3, milliseconds: 9000)]],
             expected: [[(1, true)], [(3, true)]]),
    ]

    @Test(arguments: cases)
    func feedbackStatuses(_ testCase: Case) throws {
        var recorder = TransportFeedbackRecorder()
        var now: UInt64 = 0
        for (index, batch) in testCase.batches.enumerated() {
            for arrival in batch {
                now = max(now, arrival.milliseconds * Self.ms)
                recorder.record(transportSequence: arrival.wire, arrivalNanoseconds: arrival.milliseconds * Self.ms)
            }
            let statuses = try Self.feedback(&recorder, now: now)
            #expect(statuses.map(\.0) == testCase.expected[index].map(\.0), "feedback \(index)")
            #expect(statuses.map(\.1) == testCase.expected[index].map(\.1), "feedback \(index)")
        }
    }

    @Test func cadenceIsFiftyMilliseconds() {
        var recorder = TransportFeedbackRecorder()
        #expect(!recorder.isDue(now: 0))
        recorder.record(transportSequence: 1, arrivalNanoseconds: 1 * Self.ms)
        #expect(recorder.isDue(now: 1 * Self.ms))
        var buffer = [UInt8](repeating: 0, count: 1500)
        let size = buffer.withUnsafeMutableBytes { recorder.buildFeedback(senderSSRC: 1, mediaSSRC: 2, now: 1 * Self.ms, into: $0) }
        #expect(size > 0)
        #expect(!recorder.isDue(now: 2 * Self.ms))
        recorder.record(transportSequence: 2, arrivalNanoseconds: 10 * Self.ms)
        #expect(!recorder.isDue(now: 50 * Self.ms))
        #expect(recorder.isDue(now: 51 * Self.ms))
        #expect(recorder.nextFeedbackTime(now: 20 * Self.ms) == 51 * Self.ms)
        #expect(recorder.counters.feedbackPackets == 1)
    }

    @Test func aFullFeedbackLeavesTheRestForAnImmediateNext() throws {
        var recorder = TransportFeedbackRecorder(configuration: .init(capacity: 4096, intervalNanoseconds: 50 * Self.ms,
                                                                      maxFeedbackSize: 200))
        // Every other packet lost with large deltas: many chunks and 2-byte deltas.
        for index in 0 ..< 400 {
            recorder.record(transportSequence: UInt16(index * 2), arrivalNanoseconds: UInt64(index) * 70 * Self.ms)
        }
        let first = try Self.feedback(&recorder, now: 30_000 * Self.ms)
        #expect(!first.isEmpty)
        #expect(first.count < 799)
        #expect(recorder.isDue(now: 30_000 * Self.ms))
        var covered = first.count
        var rounds = 1
        while recorder.hasUnreported, rounds < 100 {
            let next = try Self.feedback(&recorder, now: 30_000 * Self.ms)
            #expect(next.first?.0 == UInt16(covered - 1))
            covered += next.count - 1
            rounds += 1
        }
        #expect(covered == 799)
    }

    /// Sender → recorder → bytes → adapter: every sent packet comes back exactly once,
    /// lost ones as lost (including the ones just before a feedback's first arrival),
    /// arrivals floored to the 250 µs tick, over the 16-bit wrap; a seeded random loss.
    @Test(arguments: [UInt64(1), 2, 3])
    func roundTripThroughTheAdapter(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var numbers = TransportSequenceNumbers(start: 65000)
        var history = SentPacketHistory()
        var recorder = TransportFeedbackRecorder()
        var adapter = TransportFeedbackAdapter()
        var results: [PacketResult] = []
        results.reserveCapacity(1024)
        var seen: [UInt64: Bool] = [:]
        var lostSent: Set<UInt64> = []
        var buffer = [UInt8](repeating: 0, count: 1500)
        var now: UInt64 = 1000 * Self.ms
        var lastSent: UInt64 = 0
        for _ in 0 ..< 2000 {
            now += 1 * Self.ms
            let (unwrapped, wire) = numbers.allocate()
            lastSent = unwrapped
            history.record(sequenceNumber: unwrapped, sendNanoseconds: now, size: 1000, kind: .video)
            if random.next() % 100 < 10 {
                lostSent.insert(unwrapped)
            } else {
                recorder.record(transportSequence: wire, arrivalNanoseconds: now + 20 * Self.ms + random.next() % 300_000)
            }
            if recorder.isDue(now: now) {
                let size = buffer.withUnsafeMutableBytes {
                    recorder.buildFeedback(senderSSRC: 1, mediaSSRC: 2, now: now, into: $0)
                }
                guard size > 0 else { continue }
                try withRaw(Array(buffer[0 ..< size])) { view in
                    let feedback = try TransportWideCCFeedback(parsing: view)
                    adapter.adapt(feedback, history: &history, now: now, into: &results)
                }
                for result in results {
                    #expect(seen[result.sequenceNumber] == nil, "reported twice: \(result.sequenceNumber)")
                    seen[result.sequenceNumber] = result.arrivalNanoseconds != nil
                    #expect(lostSent.contains(result.sequenceNumber) == (result.arrivalNanoseconds == nil))
                }
            }
        }
        // Every packet up to the last one the receiver got and reported is accounted for.
        let reported = seen.keys.max() ?? 0
        #expect(reported > lastSent - 100)
        for sequence in 65000 ... reported {
            #expect(seen[sequence] != nil, "never reported: \(sequence)")
        }
        #expect(adapter.counters.unknownPackets == 0)
        #expect(adapter.counters.lostResults == UInt64(lostSent.filter { $0 <= reported }.count))
        #expect(recorder.counters.feedbackPackets > 30)
    }
}
