import OTMedia

/// How a `MediaEdge` is set up: where it listens, how many workers share the port, and
/// the bounds that keep hostile input cheap. A plain value; copying it is free.
public struct MediaEdgeConfiguration: Sendable {
    /// The address and port the workers bind (port 0: the kernel picks one for worker 0
    /// and the others bind the same).
    public var address: SocketAddress
    /// Worker threads, each with its own `SO_REUSEPORT` socket on the port (at least 1).
    public var workerCount: Int
    /// Datagrams one `recvmmsg` call may read.
    public var batchSize: Int
    /// The largest datagram handled; bigger ones, alone or inside a coalesced message, are
    /// dropped and counted (`unknownPackets`). Also the largest packet `send` accepts
    /// before the SRTP trailer.
    public var maximumPacketBytes: Int
    /// The most legs registered at once.
    public var maximumLegs: Int
    /// How long a DTLS handshake may take from its ClientHello before it is freed.
    public var handshakeTimeout: UInt64
    /// How long a leg keeps ICE consent after its last valid check (RFC 7675: 30 s).
    public var consentTimeout: UInt64
    /// DTLS handshakes in flight per source host (`DTLSHandshakeAdmission`).
    public var handshakesPerSource: Int
    /// DTLS handshakes in flight in total.
    public var handshakesTotal: Int
    /// How often (on the edge's clock) worker 0 runs the timers: consent expiry, DTLS
    /// retransmissions and handshake deadlines.
    public var tickInterval: UInt64
    /// The longest a worker waits for a datagram before it looks at its timers and its
    /// stop flag (real time, nanoseconds).
    public var pollInterval: UInt64
    /// `SO_RCVBUF` asked for each worker socket (nil: the kernel default).
    public var receiveBufferBytes: Int?
    /// UDP generic receive offload on the worker sockets (`UDP_GRO`): a burst of
    /// equal-sized packets from one peer (a video frame's packets) is read as one message
    /// and cut apart by the worker, one `recvmmsg` slot and one trip through the kernel's
    /// receive path for up to 64 datagrams. Costs each worker 64 KB per `batchSize` slot
    /// (2 MiB at the default 32) instead of `maximumPacketBytes`. Ignored where the kernel
    /// refuses the option.
    public var receiveCoalescing: Bool

    /// The defaults: loopback port 0, two workers, batches of 32, 1500-byte packets, 4096
    /// legs, 10 s handshakes, 30 s consent, 8 handshakes per host and 512 in all, timers
    /// every 10 ms, workers polling every 10 ms, receive coalescing on.
    public init(address: SocketAddress = .ipv4Loopback(port: 0), workerCount: Int = 2, batchSize: Int = 32,
                maximumPacketBytes: Int = 1_500, maximumLegs: Int = 4_096,
                handshakeTimeout: UInt64 = DTLSTransport.defaultHandshakeTimeout,
                consentTimeout: UInt64 = 30_000_000_000,
                handshakesPerSource: Int = DTLSHandshakeAdmission.defaultPerSource,
                handshakesTotal: Int = DTLSHandshakeAdmission.defaultTotal,
                tickInterval: UInt64 = 10_000_000, pollInterval: UInt64 = 10_000_000,
                receiveBufferBytes: Int? = nil, receiveCoalescing: Bool = true) {
        self.address = address
        self.workerCount = max(1, workerCount)
        self.batchSize = min(max(1, batchSize), 1024)
        self.maximumPacketBytes = min(max(256, maximumPacketBytes), 65_507)
        self.maximumLegs = max(1, maximumLegs)
        self.handshakeTimeout = handshakeTimeout
        self.consentTimeout = consentTimeout
        self.handshakesPerSource = handshakesPerSource
        self.handshakesTotal = handshakesTotal
        self.tickInterval = tickInterval
        self.pollInterval = max(1_000_000, pollInterval)
        self.receiveBufferBytes = receiveBufferBytes
        self.receiveCoalescing = receiveCoalescing
    }
}
