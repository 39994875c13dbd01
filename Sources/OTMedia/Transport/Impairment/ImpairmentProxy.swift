import Synchronization

/// A userspace UDP relay that impairs traffic like a bad network, for tests (the kernel
/// here has no netem).
///
/// ```
///  client ──▶ listenAddress ═══ forward link ═══▶ upstream socket ──▶ target
///  client ◀── listenAddress ◀══ reverse link ═══ upstream socket ◀── target
/// ```
/// The client sends to `listenAddress`; the proxy forwards from its own upstream socket
/// (connected to the target) and relays the target's replies back to the address the
/// client last sent from. Each direction has its own `ImpairmentSettings`, counters and
/// random sequence (seeded from `seed` and the direction), so given the seed and the same
/// arrival times the proxy drops, delays and reorders the same packets every run. One
/// client flow at a time.
///
/// It lives in OTMedia (not a test-only target) because the interop tests, later suites
/// and `otkit` all need a lossy path on a machine without netem; it costs nothing unless
/// started. It runs on its own `PipelineThread`; settings may be changed from any thread
/// while it runs. Packets are stamped by the proxy's clock on receipt (`MediaClock`) and
/// sent once the model says they are due: they never leave early, and may leave late if
/// the machine is busy (the model's departure times in the counters are exact).
public final class ImpairmentProxy: Sendable {
    /// Which way a packet travels through the proxy.
    public enum Direction: Sendable, CaseIterable {
        /// Client to target.
        case forward
        /// Target back to client.
        case reverse
    }

    /// Where clients send to (the real port if 0 was asked for).
    public let listenAddress: SocketAddress
    /// The proxy's own address as the target sees it.
    public let upstreamAddress: SocketAddress
    /// Where forwarded packets go.
    public let target: SocketAddress
    /// The proxy's time source: arrival stamps, delays and the bandwidth cap.
    public let clock: any MediaClock
    private let shared: Shared
    private let thread: PipelineThread
    private let pool: PacketBufferPool

    /// Starts a proxy listening on `listen` and relaying to `target`, with `forward` and
    /// `reverse` impairments and the random `seed`. `bufferCount` bounds the packets the
    /// proxy can hold in flight (delay × rate); beyond it arrivals are dropped and counted.
    /// Cost: one thread, two sockets with 4 MiB buffers, `bufferCount` × 2 KiB of buffers.
    public init(
        listen: SocketAddress = .ipv4Loopback(),
        target: SocketAddress,
        forward: ImpairmentSettings = ImpairmentSettings(),
        reverse: ImpairmentSettings = ImpairmentSettings(),
        seed: UInt64 = 1,
        clock: any MediaClock = SystemMediaClock(),
        bufferCount: Int = 4096
    ) throws(TransportError) {
        let listener = try UDPSocket(bindingTo: listen, receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20, clock: clock)
        let upstreamBind: SocketAddress = target.family == .ipv6 ? .ipv6Loopback() : .ipv4Loopback()
        let upstream = try UDPSocket(bindingTo: upstreamBind, receiveBufferBytes: 4 << 20, sendBufferBytes: 4 << 20, clock: clock)
        try upstream.connect(to: target)
        let pool = PacketBufferPool(initialCount: bufferCount)
        let shared = Shared(forward: forward, reverse: reverse)
        let handler = ImpairmentRelay(
            listener: listener, upstream: upstream, pool: pool, shared: shared, seed: seed)
        self.thread = try PipelineThread(name: "otkit-impair", clock: clock, sockets: [listener, upstream], handler: handler)
        self.listenAddress = listener.localAddress
        self.upstreamAddress = upstream.localAddress
        self.target = target
        self.clock = clock
        self.shared = shared
        self.pool = pool
    }

    deinit { thread.stop() }

    /// Stops the relay thread and closes its sockets; packets inside are discarded.
    /// Safe to call twice.
    public func stop() { thread.stop() }

    /// The impairments of one direction now.
    public func settings(for direction: Direction) -> ImpairmentSettings {
        shared.settings.withLock { direction == .forward ? $0.forward : $0.reverse }
    }

    /// Replaces one direction's impairments; packets arriving from now on see them.
    /// Thread-safe; takes effect within one turn of the relay thread.
    public func setSettings(_ settings: ImpairmentSettings, for direction: Direction) {
        shared.settings.withLock {
            if direction == .forward { $0.forward = settings } else { $0.reverse = settings }
        }
        shared.generation.add(1, ordering: .releasing)
        thread.wake()
    }

    /// Turns the blackhole on or off in the given directions (default: both).
    public func setBlackhole(_ on: Bool, directions: [Direction] = Direction.allCases) {
        for direction in directions {
            var settings = settings(for: direction)
            settings.blackhole = on
            setSettings(settings, for: direction)
        }
    }

    /// What one direction has done so far. Lock-free reads of atomic counters.
    public func counters(for direction: Direction) -> ImpairmentCounters {
        (direction == .forward ? shared.forwardCounters : shared.reverseCounters).snapshot
    }

    /// Buffers in the proxy's pool that are not in flight (all of them when idle).
    public var idleBufferCount: Int { pool.availableCount }

    /// State shared between the proxy's owner and its thread.
    final class Shared: Sendable {
        struct Both { var forward: ImpairmentSettings; var reverse: ImpairmentSettings }
        let settings: Mutex<Both>
        let generation = Atomic<UInt64>(0)
        let forwardCounters = ImpairmentCounterStorage()
        let reverseCounters = ImpairmentCounterStorage()

        init(forward: ImpairmentSettings, reverse: ImpairmentSettings) {
            settings = Mutex(Both(forward: forward, reverse: reverse))
        }
    }
}
