/// What a receiver knows about one incoming RTP stream, kept as RFC 3550 prescribes so
/// that its receiver reports mean what every other implementation means: extended
/// highest sequence number (A.1), cumulative and interval loss (A.3), and interarrival
/// jitter (A.8), plus packet and byte counts.
///
/// Cost: a few integer operations per packet; no allocation. Not thread-safe: the
/// receive thread updates it; readers copy the value through their own sync.
public struct ReceiveStreamStatistics: Sendable, Equatable {
    /// The RTP clock rate (90 000 for video, 48 000 for Opus).
    public let clockRate: Int
    /// Packets received (duplicates included, as RFC 3550 counts them).
    public private(set) var packetsReceived: UInt64 = 0
    /// Payload and header bytes received.
    public private(set) var bytesReceived: UInt64 = 0
    /// The first extended sequence number seen.
    public private(set) var baseSequence: Int64 = 0
    /// The highest extended sequence number seen (cycles << 16 | sequence).
    public private(set) var extendedHighestSequence: Int64 = 0
    /// Interarrival jitter estimate in RTP timestamp units (RFC 3550 A.8).
    public private(set) var jitter: Double = 0

    private var started = false
    private var lastTransit: Int64 = 0
    private var expectedAtLastReport: Int64 = 0
    private var receivedAtLastReport: UInt64 = 0

    /// Statistics for a stream with this RTP clock rate.
    public init(clockRate: Int) {
        self.clockRate = clockRate
    }

    /// Counts one packet: its sequence number, RTP timestamp, size, and arrival time.
    public mutating func record(sequence: UInt16, rtpTimestamp: UInt32, bytes: Int, arrivalNanoseconds: UInt64) {
        let first = !started
        packetsReceived += 1
        bytesReceived += UInt64(bytes)
        if first {
            started = true
            baseSequence = Int64(sequence)
            extendedHighestSequence = baseSequence
        } else {
            let delta = Int64(RTPSerial.distance(from: UInt16(truncatingIfNeeded: extendedHighestSequence), to: sequence))
            extendedHighestSequence = max(extendedHighestSequence, extendedHighestSequence + delta)
        }
        // A.8: transit = arrival (in RTP units) - RTP timestamp; J += (|D| - J) / 16.
        // Arrival in RTP units wraps like the timestamp does, so the difference is taken
        // modulo 2^32 and read as signed.
        let arrival = UInt32(truncatingIfNeeded: RTPClockTime.ticks(nanoseconds: arrivalNanoseconds, rate: clockRate))
        let transit = Int64(RTPSerial.distance(from: rtpTimestamp, to: arrival))
        if !first {
            let d = Double(abs(transit - lastTransit))
            jitter += (d - jitter) / 16
        }
        lastTransit = transit
    }

    /// Packets expected so far: highest - base + 1 (A.3).
    public var expected: Int64 { started ? extendedHighestSequence - baseSequence + 1 : 0 }

    /// Packets lost so far (expected - received; negative with duplicates, as A.3 allows).
    public var cumulativeLost: Int64 { expected - Int64(packetsReceived) }

    /// Jitter in nanoseconds.
    public var jitterNanoseconds: UInt64 { UInt64(jitter * 1_000_000_000 / Double(clockRate)) }

    /// The loss since the previous call as RFC 3550's 8-bit fraction (lost/expected × 256),
    /// and starts the next interval: call once per receiver report.
    public mutating func takeFractionLost() -> UInt8 {
        let expectedInterval = expected - expectedAtLastReport
        let receivedInterval = Int64(packetsReceived) - Int64(receivedAtLastReport)
        expectedAtLastReport = expected
        receivedAtLastReport = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        guard expectedInterval > 0, lostInterval > 0 else { return 0 }
        return UInt8(min(255, (lostInterval << 8) / expectedInterval))
    }
}
