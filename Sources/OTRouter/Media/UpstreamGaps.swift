/// The holes in one publisher video SSRC's sequence numbers, for the router's own NACKs to
/// the publisher (RFC 4585 Generic NACK): losses on the publisher → router leg are asked
/// for again instead of reaching every subscriber as a hole the router cannot fill.
///
/// A hole is NACKed after `nackDelay` (reordering tolerance), then again every retry
/// interval (the NACK → packet round trip, the largest of the last 8 measured so holes
/// filled by reordering just after their NACK do not shorten it, plus 10 ms, at least
/// 40 ms; 250 ms until measured), at most `maximumNACKs` times; it stays open (its
/// packet is still forwarded when it comes) until `maximumAge`, or until more than
/// `capacity` holes are open (oldest first).
///
/// Forwarding thread only. Storage allocated at init; `received` is O(1) in order and
/// O(holes) for a late packet, `collect` O(holes). No allocation.
struct UpstreamGaps {
    /// What a received packet was.
    enum Arrival: Equatable {
        /// The next sequence number or later (holes before it are now open).
        case inOrder
        /// Behind the highest: a hole filled (a retransmission or a reordered packet).
        case repaired
        /// Behind the highest and not an open hole: a duplicate or too old.
        case stale
    }

    static let capacity = 128
    static let nackDelay: UInt64 = 10_000_000
    static let maximumNACKs: UInt8 = 4
    static let maximumAge: UInt64 = 1_000_000_000
    static let initialRetry: UInt64 = 250_000_000

    private var sequences = [UInt16](repeating: 0, count: UpstreamGaps.capacity)
    private var openedAt = [UInt64](repeating: 0, count: UpstreamGaps.capacity)
    private var lastNACK = [UInt64](repeating: 0, count: UpstreamGaps.capacity)
    private var firstNACK = [UInt64](repeating: 0, count: UpstreamGaps.capacity)
    private var nacks = [UInt8](repeating: 0, count: UpstreamGaps.capacity)
    /// Open holes, oldest first, in `0..<count`.
    private(set) var count = 0
    private var highest: UInt16 = 0
    private var started = false
    /// NACK → packet round trip: the largest of the last 8 samples (ns; 0 = not measured).
    private(set) var roundTrip: UInt64 = 0
    private var samples: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// Holes opened, filled after a NACK, and given up, since creation.
    private(set) var opened: UInt64 = 0
    private(set) var repaired: UInt64 = 0
    private(set) var abandoned: UInt64 = 0

    /// Notes a received sequence number at `now`.
    mutating func received(_ sequence: UInt16, now: UInt64) -> Arrival {
        guard started else {
            started = true
            highest = sequence
            return .inOrder
        }
        let ahead = Int16(bitPattern: sequence &- highest)
        if ahead > 0 {
            // A jump larger than what is tracked opens only its last holes.
            var hole = ahead > Int16(Self.capacity) ? sequence &- UInt16(Self.capacity) : highest &+ 1
            while hole != sequence {
                open(hole, now: now)
                hole &+= 1
            }
            highest = sequence
            return .inOrder
        }
        for index in 0..<count where sequences[index] == sequence {
            if nacks[index] > 0 {
                // Asked more than once: from the first NACK when the retries came sooner
                // than the estimate (too short, it must be able to grow), else the last.
                let fromFirst = nacks[index] > 1 && (roundTrip == 0 || lastNACK[index] &- firstNACK[index] < roundTrip)
                let sample = max(now &- (fromFirst ? firstNACK[index] : lastNACK[index]), 1_000_000)
                samples = (samples.1, samples.2, samples.3, samples.4, samples.5, samples.6, samples.7, sample)
                let r = samples
                roundTrip = max(max(max(r.0, r.1), max(r.2, r.3)), max(max(r.4, r.5), max(r.6, r.7)))
            }
            if nacks[index] > 0 { repaired &+= 1 }
            remove(at: index)
            return .repaired
        }
        return .stale
    }

    /// The retry interval now (ns).
    var retryInterval: UInt64 { roundTrip == 0 ? Self.initialRetry : max(roundTrip + 10_000_000, 40_000_000) }

    /// Writes the sequence numbers to NACK now into `output` and returns how many;
    /// forgets holes too old or asked for too often.
    mutating func collect(now: UInt64, into output: UnsafeMutableBufferPointer<UInt16>) -> Int {
        var written = 0
        var index = 0
        let retry = retryInterval
        while index < count {
            if now &- openedAt[index] > Self.maximumAge {
                abandoned &+= 1
                remove(at: index)
                continue
            }
            if written < output.count, nacks[index] < Self.maximumNACKs, now &- openedAt[index] >= Self.nackDelay,
               nacks[index] == 0 || now &- lastNACK[index] >= retry {
                output[written] = sequences[index]
                written += 1
                if nacks[index] == 0 { firstNACK[index] = now }
                nacks[index] += 1
                lastNACK[index] = now
            }
            index += 1
        }
        return written
    }

    /// When `collect` next has something to do (nil: no open hole).
    func nextDue() -> UInt64? {
        guard count > 0 else { return nil }
        var due = UInt64.max
        let retry = retryInterval
        for index in 0..<count {
            let next = nacks[index] == 0 ? openedAt[index] + Self.nackDelay
                : nacks[index] < Self.maximumNACKs ? lastNACK[index] + retry : openedAt[index] + Self.maximumAge + 1
            due = min(due, next)
        }
        return due
    }

    private mutating func open(_ sequence: UInt16, now: UInt64) {
        if count == Self.capacity {
            abandoned &+= 1
            remove(at: 0)
        }
        sequences[count] = sequence
        openedAt[count] = now
        lastNACK[count] = 0
        nacks[count] = 0
        count += 1
        opened &+= 1
    }

    private mutating func remove(at index: Int) {
        var i = index
        while i + 1 < count {
            sequences[i] = sequences[i + 1]
            openedAt[i] = openedAt[i + 1]
            lastNACK[i] = lastNACK[i + 1]
            firstNACK[i] = firstNACK[i + 1]
            nacks[i] = nacks[i + 1]
            i += 1
        }
        count -= 1
    }
}
