import Testing
@testable import OTMedia

/// The proxy's model driven with synthetic arrival times: exact, no sockets, no threads.
@Suite struct ImpairmentLinkTests {
    typealias Support = TransportTestSupport

    /// Feeds `count` packets of `length` bytes arriving every `spacing` ns from time 0,
    /// advancing the model as time passes, then runs it to the end. Returns the packets
    /// that came out as (sequence, departure time) and the link for its counters.
    static func run(
        _ settings: ImpairmentSettings, seed: UInt64 = 7, count: Int, length: Int = 100, spacing: UInt64 = 1_000_000
    ) -> (out: [(sequence: UInt32, time: UInt64)], link: ImpairmentLink, pool: PacketBufferPool) {
        let pool = PacketBufferPool(initialCount: count + 1)
        let link = ImpairmentLink(settings: settings, seed: seed, pool: pool)
        var out: [(sequence: UInt32, time: UInt64)] = []
        var departed: [PacketBuffer] = []
        departed.reserveCapacity(pool.maximumCount)
        func drain(_ now: UInt64) {
            departed.removeAll(keepingCapacity: true)
            link.advance(to: now, into: &departed)
            for buffer in departed {
                out.append((Support.sequence(of: buffer)!, now))
                pool.release(buffer)
            }
        }
        for index in 0..<count {
            let now = UInt64(index) * spacing
            // Visit every event time, so each packet is seen leaving at its departure time.
            while let next = link.nextDeadline, next <= now { drain(next) }
            let buffer = pool.take()!
            Support.fill(buffer, sequence: UInt32(index), length: length)
            link.arrive(buffer, at: now)
        }
        while let next = link.nextDeadline { drain(next) }
        return (out, link, pool)
    }

    @Test("No impairment: everything leaves at once, in order")
    func passThrough() {
        let (out, link, pool) = Self.run(ImpairmentSettings(), count: 100)
        #expect(out.map(\.sequence) == Array(0..<100))
        #expect(out.map(\.time) == (0..<100).map { UInt64($0) * 1_000_000 })
        #expect(link.counters.forwarded == 100 && link.counters.forwardedBytes == 10_000)
        #expect(pool.availableCount == pool.createdCount)
    }

    /// CI once saw the proxy reorder an unimpaired stream while the VM's realtime clock
    /// was being slewed: a later packet's receive stamp came out earlier than the one
    /// before it. Arrival order wins over such a stamp.
    @Test("A stamp earlier than the packet before it does not overtake that packet")
    func arrivalsNeverGoBack() {
        let pool = PacketBufferPool(initialCount: 4)
        let link = ImpairmentLink(settings: ImpairmentSettings(), seed: 7, pool: pool)
        for (sequence, stamp) in [(0, 1_000_000), (1, 990_000), (2, 1_010_000)] as [(UInt32, UInt64)] {
            let buffer = pool.take()!
            Support.fill(buffer, sequence: sequence, length: 100)
            link.arrive(buffer, at: stamp)
        }
        var departed: [PacketBuffer] = []
        departed.reserveCapacity(pool.maximumCount)
        link.advance(to: 2_000_000, into: &departed)
        #expect(departed.map { Support.sequence(of: $0)! } == [0, 1, 2])
        for buffer in departed { pool.release(buffer) }
    }

    @Test("10 % loss drops 10 % ± 2 %, the same packets for the same seed, others for another")
    func lossIsSeeded() {
        let settings = ImpairmentSettings(lossProbability: 0.1)
        let first = Self.run(settings, seed: 42, count: 5000)
        let again = Self.run(settings, seed: 42, count: 5000)
        let other = Self.run(settings, seed: 43, count: 5000)
        let dropped = first.link.counters.droppedByLoss
        #expect((400...600).contains(dropped))
        #expect(first.link.counters.forwarded + dropped == 5000)
        #expect(first.out.map(\.sequence) == again.out.map(\.sequence))
        #expect(first.out.map(\.sequence) != other.out.map(\.sequence))
        // Turning on delay does not change which packets are lost.
        let delayed = Self.run(ImpairmentSettings(lossProbability: 0.1, delayNanoseconds: 5_000_000), seed: 42, count: 5000)
        #expect(delayed.out.map(\.sequence) == first.out.map(\.sequence))
    }

    @Test("Delay without jitter shifts every packet by exactly the delay, order kept")
    func delay() {
        let (out, _, _) = Self.run(ImpairmentSettings(delayNanoseconds: 30_000_000), count: 100)
        #expect(out.map(\.sequence) == Array(0..<100))
        for (index, entry) in out.enumerated() { #expect(entry.time == UInt64(index) * 1_000_000 + 30_000_000) }
    }

    @Test("Jitter delays each packet by delay...delay+jitter")
    func jitter() {
        let (out, link, _) = Self.run(ImpairmentSettings(delayNanoseconds: 10_000_000, jitterNanoseconds: 5_000_000), count: 500)
        #expect(out.count == 500)
        for entry in out {
            let sent = UInt64(entry.sequence) * 1_000_000
            #expect(entry.time >= sent + 10_000_000 && entry.time <= sent + 15_000_000)
        }
        #expect(zip(out, out.dropFirst()).contains { $0.sequence > $1.sequence })
        #expect(link.counters.reordered == 0)
    }

    @Test("Reordering holds packets back by N packets and delivers everything")
    func reorderByPackets() {
        let settings = ImpairmentSettings(reorderProbability: 0.1, reorderPackets: 3)
        let (out, link, _) = Self.run(settings, count: 1000)
        #expect(out.count == 1000)
        #expect(Set(out.map(\.sequence)).count == 1000)
        let late = zip(out, out.dropFirst()).filter { $0.sequence > $1.sequence }.count
        #expect(late > 50)
        #expect(link.counters.reordered > 50 && link.counters.reordered < 150)
        // A held packet is passed by exactly 3 later ones unless another was held with it.
        let positions = Dictionary(uniqueKeysWithValues: out.enumerated().map { ($1.sequence, $0) })
        let displaced = positions.filter { $0.value > Int($0.key) }.map { $0.value - Int($0.key) }
        #expect(displaced.contains(3))
    }

    @Test("Reordering by time releases a held packet after the hold time")
    func reorderByTime() {
        let settings = ImpairmentSettings(reorderProbability: 0.05, reorderNanoseconds: 4_500_000)
        let (out, link, _) = Self.run(settings, count: 400)
        #expect(out.count == 400)
        #expect(link.counters.reordered > 0)
        for entry in out {
            let sent = UInt64(entry.sequence) * 1_000_000
            #expect(entry.time == sent || entry.time == sent + 4_500_000)
        }
    }

    @Test("The bandwidth cap bounds bytes per interval by rate × time + burst, drops at the queue tail")
    func bandwidthCap() {
        let rate: UInt64 = 1_000_000
        let settings = ImpairmentSettings(bandwidthBitsPerSecond: rate, burstBytes: 3000, queueLimitBytes: 20_000)
        // 1000-byte packets every 1 ms = 8 Mbit/s into a 1 Mbit/s link.
        let (out, link, _) = Self.run(settings, count: 500, length: 1000)
        let counters = link.counters
        #expect(counters.droppedByCap > 0)
        #expect(counters.forwarded + counters.droppedByCap == 500)
        #expect(UInt64(out.count) == counters.forwarded)
        // Every window [a, b] of departures carries at most rate × (b - a) + burst.
        let times = out.map(\.time)
        for start in stride(from: 0, to: times.count, by: 7) {
            for end in stride(from: start, to: times.count, by: 11) {
                let bytes = UInt64(end - start + 1) * 1000
                #expect(bytes * 8 * 1_000_000_000 <= rate * (times[end] - times[start]) + 3000 * 8 * 1_000_000_000)
            }
        }
        // And the link is busy: the average rate is close to the cap, not far below it.
        let span = times.last! - times.first!
        #expect(counters.forwardedBytes * 8 * 1_000_000_000 >= rate * span)
        #expect(times == times.sorted())
    }

    @Test("The blackhole drops everything while on")
    func blackhole() {
        let (out, link, pool) = Self.run(ImpairmentSettings(blackhole: true), count: 50)
        #expect(out.isEmpty)
        #expect(link.counters.droppedByBlackhole == 50)
        #expect(pool.availableCount == pool.createdCount)
    }
}
