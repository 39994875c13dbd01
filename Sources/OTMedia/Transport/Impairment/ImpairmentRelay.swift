/// The proxy's thread: receives on both sockets, feeds the two `ImpairmentLink`s, and
/// sends what they release. Everything here runs on the proxy's `PipelineThread`.
final class ImpairmentRelay: PipelineHandler {
    private let sockets: [UDPSocket]
    private let pool: PacketBufferPool
    private let shared: ImpairmentProxy.Shared
    private var links: [ImpairmentLink]
    private var seenGeneration: UInt64 = .max
    /// Where replies go: the address the client last sent from.
    private var client: SocketAddress?
    /// Per socket: receive slots, `filled` of them ours; the rest hold `placeholder`.
    private var slots: [[PacketBuffer]]
    private var filled: [Int]
    /// Stands in for slots the pool could not fill; also the sink when the pool is empty.
    private let placeholder: [PacketBuffer]
    private var departures: [PacketBuffer] = []
    private let receiveBatch = UDPMessageBatch(capacity: 32)
    private let sendBatch = UDPMessageBatch(capacity: 32)

    init(listener: UDPSocket, upstream: UDPSocket, pool: PacketBufferPool, shared: ImpairmentProxy.Shared, seed: UInt64) {
        sockets = [listener, upstream]
        self.pool = pool
        self.shared = shared
        let both = shared.settings.withLock { $0 }
        let forward = ImpairmentLink(settings: both.forward, seed: seed, pool: pool, counters: shared.forwardCounters)
        let reverse = ImpairmentLink(
            settings: both.reverse, seed: seed ^ 0x5245_5645_5253_4531, pool: pool, counters: shared.reverseCounters)
        links = [forward, reverse]
        let spare = PacketBuffer(capacity: pool.bufferSize, headroom: pool.headroom)
        placeholder = Array(repeating: spare, count: 32)
        slots = [placeholder, placeholder]
        filled = [0, 0]
        departures.reserveCapacity(pool.maximumCount)
    }

    func pipelineStarted(now: UInt64) {
        refresh()
        refill(0)
        refill(1)
    }

    func socketReadable(_ index: Int, now: UInt64) {
        refresh()
        // Leave the receive slots full: a quiet proxy then holds exactly its 2 × 32 posted
        // buffers, whatever size the last batch had.
        defer { refill(index) }
        let link = links[index]
        for _ in 0..<8 {
            refill(index)
            let result: IOResult
            do {
                if filled[index] == 0 {
                    // No free buffers: read into the placeholder to keep the socket from
                    // spinning, and count the datagrams as dropped.
                    result = try sockets[index].receive(into: placeholder, batch: receiveBatch)
                    link.counterStorage.received.add(UInt64(result.count), ordering: .relaxed)
                    link.counterStorage.droppedOther.add(UInt64(result.count), ordering: .relaxed)
                    if case .wouldBlock = result { return }
                    continue
                }
                result = try sockets[index].receive(into: slots[index], maximum: filled[index], batch: receiveBatch)
            } catch {
                return
            }
            let count = result.count
            for position in 0..<count {
                let buffer = slots[index][position]
                if index == 0 { client = buffer.peer }
                link.arrive(buffer, at: buffer.receiveTimestamp)
            }
            // Keep the unused buffers at the front.
            let remaining = filled[index] - count
            for position in 0..<remaining { slots[index][position] = slots[index][count + position] }
            for position in remaining..<filled[index] { slots[index][position] = placeholder[0] }
            filled[index] = remaining
            if case .wouldBlock = result { return }
            if count == 0 { return }
        }
    }

    func wokenUp(now: UInt64) { refresh() }

    func runTimers(now: UInt64) -> UInt64? {
        refresh()
        var deadline: UInt64?
        for (index, link) in links.enumerated() {
            departures.removeAll(keepingCapacity: true)
            link.advance(to: now, into: &departures)
            if !departures.isEmpty { send(departures, from: index, link: link) }
            if let next = link.nextDeadline { deadline = min(deadline ?? .max, next) }
        }
        return deadline
    }

    func pipelineStopped(now: UInt64) {
        for link in links { link.drain() }
        for index in 0..<2 {
            for position in 0..<filled[index] { pool.release(slots[index][position]) }
            filled[index] = 0
        }
        for socket in sockets { socket.close() }
    }

    /// Forward packets leave by the upstream socket (connected to the target); reverse
    /// packets leave by the listening socket towards the client.
    private func send(_ buffers: [PacketBuffer], from index: Int, link: ImpairmentLink) {
        let out = sockets[1 - index]
        var consumed = 0
        if index == 0 {
            for buffer in buffers { buffer.peer = nil }
        } else if let client {
            for buffer in buffers { buffer.peer = client }
        } else {
            link.counterStorage.droppedOther.add(UInt64(buffers.count), ordering: .relaxed)
            for buffer in buffers { pool.release(buffer) }
            return
        }
        do {
            consumed = try out.send(buffers, batch: sendBatch).count
        } catch {
            consumed = 0
        }
        if consumed < buffers.count {
            link.counterStorage.droppedOther.add(UInt64(buffers.count - consumed), ordering: .relaxed)
        }
        for buffer in buffers { pool.release(buffer) }
    }

    private func refill(_ index: Int) {
        while filled[index] < slots[index].count, let buffer = pool.take() {
            slots[index][filled[index]] = buffer
            filled[index] += 1
        }
    }

    /// Copies new settings into the links when the owner changed them.
    private func refresh() {
        let generation = shared.generation.load(ordering: .acquiring)
        guard generation != seenGeneration else { return }
        seenGeneration = generation
        let both = shared.settings.withLock { $0 }
        links[0].settings = both.forward
        links[1].settings = both.reverse
    }
}
