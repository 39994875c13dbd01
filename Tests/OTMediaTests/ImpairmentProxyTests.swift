import Testing
@testable import OTMedia

/// The proxy end to end over loopback sockets, on the real clock. Assertions are on
/// counts, orders and lower bounds of time only; waits have generous failsafes.
@Suite struct ImpairmentProxyTests {
    typealias Support = TransportTestSupport

    /// A client socket, a target socket and a proxy between them.
    struct Rig {
        let client: UDPSocket
        let target: UDPSocket
        let proxy: ImpairmentProxy
        let pool = PacketBufferPool(initialCount: 512)

        init(forward: ImpairmentSettings = ImpairmentSettings(), reverse: ImpairmentSettings = ImpairmentSettings(), seed: UInt64 = 1) throws {
            client = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20)
            target = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20)
            proxy = try ImpairmentProxy(target: target.localAddress, forward: forward, reverse: reverse, seed: seed)
        }

        /// Sends `range` from the client through the proxy, `batchSize` at a time, waiting
        /// after each batch until the proxy has taken it in (so no kernel buffer overflows).
        func sendForward(_ range: Range<UInt32>, length: Int = 100, batchSize: Int = 50) throws {
            let base = proxy.counters(for: .forward).received
            try Support.send(range, length: length, from: client, to: proxy.listenAddress, pool: pool, batchSize: batchSize) { sent in
                _ = Support.waitUntil { proxy.counters(for: .forward).received >= base + UInt64(sent) }
            }
        }

        /// Waits until the forward direction has nothing left inside the proxy.
        func settleForward() -> ImpairmentCounters {
            _ = Support.waitUntil {
                let c = proxy.counters(for: .forward)
                return c.received == c.forwarded + c.droppedByLoss + c.droppedByCap + c.droppedByBlackhole + c.droppedOther
            }
            return proxy.counters(for: .forward)
        }
    }

    @Test("0 % loss forwards everything both ways, in order")
    func forwardsBothWays() throws {
        let rig = try Rig()
        defer { rig.proxy.stop() }
        try rig.sendForward(0..<300)
        let atTarget = try Support.collect(rig.target, count: 300)
        #expect(atTarget.map(\.sequence) == (0..<300).map { Optional($0) })
        #expect(atTarget.allSatisfy { $0.peer == rig.proxy.upstreamAddress })

        let base = rig.proxy.counters(for: .reverse).received
        try Support.send(1000..<1300, from: rig.target, to: rig.proxy.upstreamAddress, pool: rig.pool) { sent in
            _ = Support.waitUntil { rig.proxy.counters(for: .reverse).received >= base + UInt64(sent) }
        }
        let atClient = try Support.collect(rig.client, count: 300)
        #expect(atClient.map(\.sequence) == (1000..<1300).map { Optional($0) })
        #expect(atClient.allSatisfy { $0.peer == rig.proxy.listenAddress })
        for direction in ImpairmentProxy.Direction.allCases {
            let counters = rig.proxy.counters(for: direction)
            #expect(counters.received == 300 && counters.forwarded == 300)
            #expect(counters.receivedBytes == 30_000 && counters.forwardedBytes == 30_000)
        }
    }

    @Test("10 % loss over 5000 packets drops 10 % ± 2 %, and the same seed drops the same packets")
    func seededLoss() throws {
        func run(seed: UInt64) throws -> (sequences: [UInt32], counters: ImpairmentCounters) {
            let rig = try Rig(forward: ImpairmentSettings(lossProbability: 0.1), seed: seed)
            defer { rig.proxy.stop() }
            try rig.sendForward(0..<5000, length: 60)
            let counters = rig.settleForward()
            let got = try Support.collect(rig.target, count: Int(counters.forwarded))
            let sequences: [UInt32] = got.compactMap { $0.sequence }
            return (sequences, counters)
        }
        let first = try run(seed: 2024)
        let second = try run(seed: 2024)
        #expect(first.counters.received == 5000)
        #expect((400...600).contains(first.counters.droppedByLoss))
        #expect(first.sequences.count == 5000 - Int(first.counters.droppedByLoss))
        #expect(first.sequences == first.sequences.sorted())
        #expect(first.sequences == second.sequences)
    }

    @Test("Delay holds every packet at least the configured time and keeps the order")
    func delay() throws {
        let delay: UInt64 = 25_000_000
        let rig = try Rig(forward: ImpairmentSettings(delayNanoseconds: delay))
        defer { rig.proxy.stop() }
        var sentAt: [UInt64] = []
        for sequence in UInt32(0)..<40 {
            sentAt.append(MonotonicClock.nanoseconds())
            try Support.send(sequence..<sequence + 1, from: rig.client, to: rig.proxy.listenAddress, pool: rig.pool)
        }
        let got = try Support.collect(rig.target, count: 40)
        #expect(got.map(\.sequence) == (0..<40).map { Optional($0) })
        for entry in got {
            #expect(entry.timestamp >= sentAt[Int(entry.sequence!)] + delay)
        }
    }

    @Test("Reordering produces out-of-order arrivals and loses nothing")
    func reordering() throws {
        // Held packets go out after 3 later ones, or after 20 ms once traffic stops.
        let settings = ImpairmentSettings(reorderProbability: 0.2, reorderPackets: 3, reorderNanoseconds: 20_000_000)
        let rig = try Rig(forward: settings, seed: 9)
        defer { rig.proxy.stop() }
        try rig.sendForward(0..<300)
        let counters = rig.settleForward()
        #expect(counters.forwarded == 300)
        #expect(counters.reordered > 0)
        let got: [UInt32] = try Support.collect(rig.target, count: 300).compactMap { $0.sequence }
        #expect(got.count == 300)
        #expect(Set(got) == Set(0..<300))
        #expect(zip(got, got.dropFirst()).contains { $0 > $1 })
    }

    @Test("The bandwidth cap bounds forwarded bytes by cap × interval + burst on the proxy's clock")
    func bandwidthCap() throws {
        let rate: UInt64 = 800_000
        let burst = 3000
        let rig = try Rig(forward: ImpairmentSettings(bandwidthBitsPerSecond: rate, burstBytes: burst, queueLimitBytes: 20_000))
        defer { rig.proxy.stop() }
        try rig.sendForward(0..<200, length: 1000)
        let counters = rig.settleForward()
        #expect(counters.received == 200)
        #expect(counters.droppedByCap > 0)
        #expect(counters.forwarded + counters.droppedByCap == 200)
        let interval = counters.lastForwardNanoseconds - counters.firstForwardNanoseconds
        #expect(counters.forwardedBytes * 8 * 1_000_000_000 <= rate * interval + UInt64(burst) * 8 * 1_000_000_000)
        let got = try Support.collect(rig.target, count: Int(counters.forwarded))
        #expect(got.count == Int(counters.forwarded))
        let sequences = got.compactMap(\.sequence)
        #expect(sequences == sequences.sorted())
    }

    @Test("The blackhole drops everything while on and traffic resumes when it is off")
    func blackhole() throws {
        let rig = try Rig()
        defer { rig.proxy.stop() }
        rig.proxy.setBlackhole(true)
        #expect(rig.proxy.settings(for: .forward).blackhole && rig.proxy.settings(for: .reverse).blackhole)
        try rig.sendForward(0..<100)
        var counters = rig.settleForward()
        #expect(counters.droppedByBlackhole == 100 && counters.forwarded == 0)
        #expect(try rig.target.receive(into: [rig.pool.take()!], batch: UDPMessageBatch()) == .wouldBlock(0))

        rig.proxy.setBlackhole(false)
        try rig.sendForward(100..<200)
        let got = try Support.collect(rig.target, count: 100)
        #expect(got.map(\.sequence) == (100..<200).map { Optional($0) })
        counters = rig.settleForward()
        #expect(counters.droppedByBlackhole == 100 && counters.forwarded == 100)
    }

    @Test("The proxy returns every buffer to its pool once traffic stops")
    func buffersComeBack() throws {
        let rig = try Rig(forward: ImpairmentSettings(delayNanoseconds: 2_000_000, jitterNanoseconds: 2_000_000))
        defer { rig.proxy.stop() }
        try rig.sendForward(0..<200)
        _ = rig.settleForward()
        // The relay keeps 2 × 32 buffers posted for receiving; all the others are idle.
        #expect(Support.waitUntil { rig.proxy.idleBufferCount == 4096 - 64 })
        _ = try Support.collect(rig.target, count: 200)
    }
}
