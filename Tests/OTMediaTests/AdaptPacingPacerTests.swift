import Testing
@testable import OTMedia

/// The pacer: spacing at the pacing rate, audio first, the 5 ms burst bound
/// (draft-ietf-rmcat-gcc-02 section 4), bounded queues, padding while probing.
@Suite struct AdaptPacingPacerTests {
    static let ms: UInt64 = 1_000_000

    /// One departure.
    struct Departure: Equatable, CustomStringConvertible {
        var time: UInt64
        var handle: UInt32
        var kind: SentPacketKind
        var description: String { "\(kind) \(handle) @ \(time)" }
    }

    /// Drives the pacer the way a send loop would: at each due time take every packet
    /// that may leave, then jump to `nextSendTime`. Stops when nothing is due or at
    /// `until`. `arrivals` are (time, handle, size, kind) enqueued as their time comes.
    static func drive(_ pacer: inout Pacer, from start: UInt64, until: UInt64,
                      arrivals: [(UInt64, UInt32, Int, SentPacketKind)] = []) -> [Departure] {
        var departures: [Departure] = []
        var now = start
        var pending = arrivals[...]
        while now <= until {
            while let arrival = pending.first, arrival.0 <= now {
                pacer.enqueue(handle: arrival.1, size: arrival.2, kind: arrival.3, now: arrival.0)
                pending = pending.dropFirst()
            }
            while let packet = pacer.dequeue(now: now) {
                departures.append(Departure(time: now, handle: packet.handle, kind: packet.kind))
            }
            let due = pacer.nextSendTime(now: now)
            let nextArrival = pending.first?.0
            switch (due, nextArrival) {
            case let (due?, arrival?): now = min(due, arrival)
            case let (due?, nil): now = due
            case let (nil, arrival?): now = arrival
            case (nil, nil): return departures
            }
        }
        return departures
    }

    /// (pacing rate bits/s, spacing of 1200-byte packets in ns): 9600 bits / rate.
    static let keyframeRates: [(UInt64, UInt64)] = [
        (1_000_000, 9_600_000),   // 30 packets over 288 ms
        (2_500_000, 3_840_000),
        (10_000_000, 960_000),
    ]

    @Test(arguments: keyframeRates)
    func keyframeIsSpreadOut(_ rate: UInt64, _ spacing: UInt64) {
        var pacer = Pacer(pacingRate: rate, now: 0)
        for handle: UInt32 in 0 ..< 30 { pacer.enqueue(handle: handle, size: 1200, kind: .video, now: 0) }
        #expect(pacer.queuedBytes == 36_000)
        #expect(pacer.drainNanoseconds == 30 * spacing)
        let departures = Self.drive(&pacer, from: 0, until: 10_000 * Self.ms)
        #expect(departures == (0 ..< 30).map { Departure(time: UInt64($0) * spacing, handle: UInt32($0), kind: .video) })
        #expect(pacer.queuedVideoPackets == 0)
        #expect(pacer.counters.sentPackets == 30 && pacer.counters.sentBytes == 36_000)
        #expect(pacer.nextSendTime(now: 30 * spacing) == nil)
    }

    @Test func keyframeAtOneMegabitTakes288Milliseconds() {
        var pacer = Pacer(pacingRate: 1_000_000, now: 0)
        for handle: UInt32 in 0 ..< 30 { pacer.enqueue(handle: handle, size: 1200, kind: .video, now: 0) }
        let departures = Self.drive(&pacer, from: 0, until: 10_000 * Self.ms)
        #expect(departures.filter { $0.time == 0 }.count == 1)          // not at once
        #expect(departures.last?.time == 278_400_000)                    // the 30th leaves at 29 × 9.6 ms
        #expect(departures.last!.time + 9_600_000 == 288 * Self.ms)      // and its bits are out at 288 ms
        #expect(pacer.queueDelay(now: 0) == 0)
    }

    /// (video handles queued, handles to drop) → what leaves afterwards, in order. The
    /// ring wraps (capacity 4, two popped first) so removal is checked across its end;
    /// audio and retransmissions are never touched.
    static let staleDrops: [([UInt32], Set<UInt32>, [UInt32])] = [
        ([1, 2, 3, 4], [1, 3], [2, 4]),
        ([1, 2, 3, 4], [], [1, 2, 3, 4]),
        ([1, 2, 3, 4], [1, 2, 3, 4], []),
        ([1, 2, 3], [3], [1, 2]),
    ]
    @Test(arguments: staleDrops)
    func droppingStaleVideoKeepsTheRestInOrder(queued: [UInt32], drop: Set<UInt32>, left: [UInt32]) {
        var pacer = Pacer(configuration: Pacer.Configuration(burstNanoseconds: 5_000_000, audioCapacity: 8, videoCapacity: 4), pacingRate: 100_000_000, now: 0)
        for (handle, now) in [(UInt32(90), UInt64(0)), (91, Self.ms)] {
            pacer.enqueue(handle: handle, size: 1200, kind: .video, now: now)
            #expect(pacer.dequeue(now: now)?.handle == handle)
        }
        for handle in queued { pacer.enqueue(handle: handle, size: 1000, kind: .video, now: 0) }
        pacer.enqueue(handle: 50, size: 100, kind: .audio, now: 0)
        pacer.enqueue(handle: 60, size: 1200, kind: .retransmission, now: 0)
        var seen: [UInt32] = []
        pacer.forEachQueuedVideo { seen.append($0) }
        #expect(seen == queued)
        var dropped: [UInt32] = []
        let count = pacer.dropVideo(where: { drop.contains($0) }) { dropped.append($0.handle) }
        #expect(count == drop.count && Set(dropped) == drop && pacer.counters.droppedVideoPackets == UInt64(drop.count))
        #expect(pacer.queuedBytes == 100 + 1200 + 1000 * left.count)
        var out: [UInt32] = []
        var at = 2 * Self.ms
        while let packet = pacer.dequeue(now: at) { out.append(packet.handle); at += Self.ms }
        #expect(out == [50, 60] + left)
    }

    @Test func audioQueuedBehindVideoGoesFirst() {
        var pacer = Pacer(pacingRate: 1_000_000, now: 0)
        let arrivals: [(UInt64, UInt32, Int, SentPacketKind)] =
            (0 ..< 5).map { (0, UInt32($0), 1200, SentPacketKind.video) }
            + [(1 * Self.ms, 100, 100, .audio), (2 * Self.ms, 101, 100, .audio)]
        let departures = Self.drive(&pacer, from: 0, until: 1000 * Self.ms, arrivals: arrivals)
        // 1200 B = 9.6 ms at 1 Mbps, 100 B = 0.8 ms.
        #expect(departures == [
            Departure(time: 0, handle: 0, kind: .video),
            Departure(time: 9_600_000, handle: 100, kind: .audio),
            Departure(time: 10_400_000, handle: 101, kind: .audio),
            Departure(time: 11_200_000, handle: 1, kind: .video),
            Departure(time: 20_800_000, handle: 2, kind: .video),
            Departure(time: 30_400_000, handle: 3, kind: .video),
            Departure(time: 40_000_000, handle: 4, kind: .video),
        ])
    }

    @Test func queueDelayIsTheOldestWait() {
        var pacer = Pacer(pacingRate: 1_000_000, now: 0)
        pacer.enqueue(handle: 1, size: 1200, kind: .video, now: 3 * Self.ms)
        pacer.enqueue(handle: 2, size: 100, kind: .audio, now: 5 * Self.ms)
        #expect(pacer.queueDelay(now: 10 * Self.ms) == 7 * Self.ms)
        #expect(pacer.dequeue(now: 10 * Self.ms)?.handle == 2)  // the audio leaves first
        #expect(pacer.queueDelay(now: 10 * Self.ms) == 7 * Self.ms)
        #expect(pacer.dequeue(now: 10 * Self.ms)?.handle == 1)  // 5 ms banked, 800 bits spent: still ≥ 0
        #expect(pacer.queueDelay(now: 10 * Self.ms) == 0)
        #expect(pacer.dequeue(now: 10 * Self.ms) == nil)
    }

    /// (rate, idle before the burst, packets queued, packets leaving at once):
    /// the budget banks at most 5 ms worth, and one packet may overdraw it.
    static let bursts: [(UInt64, UInt64, Int, Int)] = [
        (1_000_000, 1_000 * ms, 40, 1),           // 5 ms = 5000 bits < one packet: one leaves
        (10_000_000, 1_000 * ms, 40, 6),          // 50 000 bits: 5 full packets fit, the 6th overdraws
        (10_000_000, 2 * ms, 40, 3),              // only 2 ms banked: 20 000 bits
        (100_000_000, 3_600_000 * ms, 100, 53),   // an hour idle banks no more than 5 ms (500 000 bits)
        (1_000_000_000, 86_400_000 * ms, 1000, 521), // a day idle at 1 Gbps: 5 Mbit, no overflow
    ]

    @Test(arguments: bursts)
    func burstIsBounded(_ rate: UInt64, _ idle: UInt64, _ queued: Int, _ atOnce: Int) {
        var pacer = Pacer(pacingRate: rate, now: 0)
        #expect(pacer.nextSendTime(now: idle) == nil)  // nothing queued
        for handle in 0 ..< queued { pacer.enqueue(handle: UInt32(handle), size: 1200, kind: .video, now: idle) }
        var sent = 0
        while pacer.dequeue(now: idle) != nil { sent += 1 }
        #expect(sent == atOnce)
        let burstBits = rate * pacer.configuration.burstNanoseconds / 1_000_000_000
        #expect(UInt64(sent - 1) * 9600 <= burstBits)  // at most the burst plus one packet
        #expect((pacer.nextSendTime(now: idle) ?? 0) > idle)  // the rest waits
    }

    /// (audio cap, video cap, audio queued, video queued, audio dropped, video dropped)
    static let overflows: [(Int, Int, Int, Int, Int, Int)] = [
        (4, 8, 3, 12, 0, 4),   // video overflows: its 4 oldest go, audio untouched
        (4, 8, 4, 8, 0, 0),    // exactly full: nothing dropped
        (4, 8, 6, 2, 2, 0),    // audio overflows its own queue: video untouched
    ]

    @Test(arguments: overflows)
    func overflowDropsTheOldestOfItsOwnQueue(_ audioCap: Int, _ videoCap: Int, _ audioCount: Int, _ videoCount: Int,
                                             _ audioDrops: Int, _ videoDrops: Int) {
        let configuration = Pacer.Configuration(burstNanoseconds: 5 * Self.ms, audioCapacity: audioCap,
                                                videoCapacity: videoCap)
        var pacer = Pacer(configuration: configuration, pacingRate: 1_000_000, now: 0)
        var dropped: [PacedPacket] = []
        // Interleaved: video 0, 1, ... and audio 1000, 1001, ...
        for index in 0 ..< max(audioCount, videoCount) {
            if index < videoCount, let drop = pacer.enqueue(handle: UInt32(index), size: 1200, kind: .video, now: 0) {
                dropped.append(drop)
            }
            if index < audioCount, let drop = pacer.enqueue(handle: UInt32(1000 + index), size: 100, kind: .audio, now: 0) {
                dropped.append(drop)
            }
        }
        #expect(pacer.counters.droppedVideoPackets == UInt64(videoDrops))
        #expect(pacer.counters.droppedAudioPackets == UInt64(audioDrops))
        #expect(dropped.filter { $0.kind == .video }.map(\.handle) == (0 ..< videoDrops).map { UInt32($0) })
        #expect(dropped.filter { $0.kind == .audio }.map(\.handle) == (0 ..< audioDrops).map { UInt32(1000 + $0) })
        let departures = Self.drive(&pacer, from: 0, until: 10_000 * Self.ms)
        let expectedAudio = (audioDrops ..< audioCount).map { UInt32(1000 + $0) }
        let expectedVideo = (videoDrops ..< videoCount).map { UInt32($0) }
        #expect(departures.map(\.handle) == expectedAudio + expectedVideo)  // all audio first
    }

    @Test func paddingFillsUpToTheProbeRateOnlyWhenIdle() {
        var pacer = Pacer(pacingRate: 1_000_000, now: 0)
        #expect(pacer.nextSendTime(now: 0) == nil)
        pacer.setPaddingRate(300_000, now: 0)
        let departures = Self.drive(&pacer, from: 0, until: 1_000 * Self.ms)
        #expect(departures.allSatisfy { $0.kind == .padding && $0.handle == 0 })
        let bits = pacer.counters.paddingBytes * 8
        // 300 kbit in 1 s, within one padding packet (255 B = 2040 bits) and the 5 ms burst.
        #expect(bits >= 300_000 - 2040 && bits <= 300_000 + 1500 + 2040)
        // Padding requests are themselves spaced: never more than the burst plus one at an instant.
        var perInstant: [UInt64: Int] = [:]
        for departure in departures { perInstant[departure.time, default: 0] += 1 }
        #expect(perInstant.values.max()! <= 2)

        pacer.setPaddingRate(0, now: 1_000 * Self.ms)
        #expect(pacer.nextSendTime(now: 1_000 * Self.ms) == nil)
        #expect(pacer.dequeue(now: 2_000 * Self.ms) == nil)
    }

    @Test func mediaAboveTheProbeRateLeavesNoRoomForPadding() {
        var pacer = Pacer(pacingRate: 1_000_000, now: 0)
        pacer.setPaddingRate(300_000, now: 0)
        // 400 kbps of video: 1200 B every 24 ms.
        let arrivals = (0 ..< 42).map { (UInt64($0) * 24 * Self.ms, UInt32($0), 1200, SentPacketKind.video) }
        let departures = Self.drive(&pacer, from: 0, until: 1_000 * Self.ms, arrivals: arrivals)
        #expect(departures.count == 42 + departures.filter { $0.kind == .padding }.count)
        #expect(pacer.counters.paddingPackets == 0)
        #expect(pacer.counters.sentPackets == 42)
    }

    @Test func rateZeroPausesAndARateChangeResumes() {
        var pacer = Pacer(pacingRate: 0, now: 0)
        pacer.enqueue(handle: 7, size: 1200, kind: .video, now: 0)
        #expect(pacer.dequeue(now: 5 * Self.ms) == nil)
        #expect(pacer.nextSendTime(now: 5 * Self.ms) == nil)
        pacer.setPacingRate(2_000_000, now: 10 * Self.ms)
        #expect(pacer.dequeue(now: 10 * Self.ms)?.handle == 7)
        pacer.enqueue(handle: 8, size: 1200, kind: .video, now: 10 * Self.ms)
        #expect(pacer.nextSendTime(now: 10 * Self.ms) == 14_800_000)  // 9600 bits at 2 Mbps = 4.8 ms
        // Lowering the rate mid-debt stretches the wait.
        pacer.setPacingRate(1_000_000, now: 12_400_000)               // half the debt repaid: 4800 bits left
        #expect(pacer.nextSendTime(now: 12_400_000) == 17_200_000)
    }

    /// A bottleneck link (deterministic FIFO with a drop-tail buffer): a 1.5 Mbps link
    /// with a 20-packet buffer. A 30 × 1200 B keyframe sent at once overflows it and
    /// queues for ~130 ms; paced at 1 Mbps (2.5 × a 400 kbps target) it never queues
    /// behind more than itself.
    struct Bottleneck {
        var rate: UInt64
        var buffer: Int
        var departures: [UInt64] = []
        var drops = 0
        var maxDelay: UInt64 = 0

        mutating func send(at time: UInt64, size: Int) {
            let inQueue = departures.filter { $0 > time }.count
            guard inQueue < buffer else {
                drops += 1
                return
            }
            let start = max(time, departures.last ?? 0)
            let done = start + UInt64(size) * 8 * 1_000_000_000 / rate
            departures.append(done)
            maxDelay = max(maxDelay, done - time)
        }
    }

    @Test(arguments: [false, true])
    func simulatedBottleneck(_ paced: Bool) {
        var link = Bottleneck(rate: 1_500_000, buffer: 20)
        if paced {
            var pacer = Pacer(pacingRate: 1_000_000, now: 0)
            for handle: UInt32 in 0 ..< 30 { pacer.enqueue(handle: handle, size: 1200, kind: .video, now: 0) }
            for departure in Self.drive(&pacer, from: 0, until: 10_000 * Self.ms) { link.send(at: departure.time, size: 1200) }
        } else {
            for _ in 0 ..< 30 { link.send(at: 0, size: 1200) }
        }
        // 1200 B at 1.5 Mbps = 6.4 ms on the wire.
        if paced {
            #expect(link.drops == 0)
            #expect(link.maxDelay == 6_400_000)
        } else {
            #expect(link.drops == 10)
            #expect(link.maxDelay == 20 * 6_400_000)
        }
    }
}
