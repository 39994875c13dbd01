/// Splits the publisher's video target across its simulcast encodings (largest first:
/// full, ½ and ¼ size) and switches the larger ones off when the target cannot carry
/// them, with the same hysteresis as `QualityController`.
///
/// Split: the active encodings share the target by weight — ¼ size 15 %, ½ size 30 %,
/// full size the rest (55 %); with two encodings 30 % / 70 %. The weights follow the
/// pixel counts only loosely (16:4:1) because small pictures need more bits per pixel.
/// Inactive encodings' weights are spread over the active ones in proportion.
///
/// Switching: the largest active encoding goes off when its share stays below its floor
/// (the floor of its ceiling rung) for `downHold`, or at once below half of it
/// (`switchOffFraction`; the ladder's own `farBelowFraction` is stricter); the next larger one comes back when the share it would get has stayed at or
/// above `upHeadroom` × its floor for `upHold`. The smallest eligible encoding is never
/// switched off (below its ladder, audio fallback takes over). Encodings before
/// `firstEligible` (excluded by an encoding limit) stay off.
///
/// Pure and clock-injected; `update` is O(encodings) and allocates nothing.
struct SimulcastAllocator: Sendable {
    /// Below this fraction of its floor the largest encoding switches off at once (0.5: an
    /// encoding going off loses a whole picture size for its receivers, so it waits longer
    /// than a ladder step within one encoding does).
    static let switchOffFraction = 0.5

    /// Per encoding (largest first): bits per second its ceiling rung needs.
    var floors: [Int]
    /// The hysteresis constants (shared with the quality ladder's controller).
    let configuration: QualityController.Configuration
    /// Encodings `firstActive..<count` are on.
    private(set) var firstActive: Int
    /// The first encoding an encoding limit allows.
    private(set) var firstEligible: Int = 0
    /// Per encoding, bits per second from the last `update` (0 when off).
    private(set) var shares: [Int]
    private let weights: [Double]
    private var belowSince: UInt64?
    private var headroomSince: UInt64?

    /// The split weights for `count` encodings, largest first.
    static func weights(count: Int) -> [Double] {
        switch count {
        case 3: return [0.55, 0.30, 0.15]
        case 2: return [0.70, 0.30]
        default: return [1]
        }
    }

    /// An allocator for encodings with the given floors, all on at first.
    init(floors: [Int], configuration: QualityController.Configuration = .init()) {
        self.floors = floors
        self.configuration = configuration
        weights = Self.weights(count: floors.count)
        shares = Array(repeating: 0, count: floors.count)
        firstActive = 0
    }

    /// Number of encodings.
    var count: Int { floors.count }

    /// Excludes encodings before `first` (an encoding limit rules out their size); the
    /// active set shrinks at once, and never grows past `first` again until changed.
    /// `activateAll` turns every eligible encoding on at once (no target known yet, so
    /// there is nothing to wait for).
    mutating func setFirstEligible(_ first: Int, activateAll: Bool = false) {
        firstEligible = min(max(0, first), count - 1)
        if firstActive < firstEligible || activateAll { firstActive = firstEligible }
        belowSince = nil
        headroomSince = nil
    }

    /// What encoding `index` would get if encodings `first..<count` were on.
    func share(of index: Int, first: Int, target: Int) -> Int {
        var total = 0.0
        for i in first..<count { total += weights[i] }
        return Int(Double(target) * weights[index] / total)
    }

    /// Feeds the target (bits per second for all video) at `now` (nanoseconds); updates
    /// `firstActive` and `shares`. Returns true when the active set changed.
    mutating func update(target: Int, now: UInt64) -> Bool {
        let c = configuration
        var changed = false
        if firstActive < count - 1 {
            let floor = floors[firstActive]
            let own = share(of: firstActive, first: firstActive, target: target)
            if own < floor {
                if belowSince == nil { belowSince = now }
                if Double(own) < Double(floor) * Self.switchOffFraction || now &- belowSince! >= c.downHold {
                    firstActive += 1
                    belowSince = nil
                    headroomSince = nil
                    changed = true
                }
            } else {
                belowSince = nil
            }
        }
        if !changed, firstActive > firstEligible {
            let candidate = firstActive - 1
            let would = share(of: candidate, first: candidate, target: target)
            if Double(would) >= Double(floors[candidate]) * c.upHeadroom {
                if headroomSince == nil { headroomSince = now }
                if now &- headroomSince! >= c.upHold {
                    firstActive = candidate
                    headroomSince = nil
                    belowSince = nil
                    changed = true
                }
            } else {
                headroomSince = nil
            }
        }
        for i in 0..<count { shares[i] = i < firstActive ? 0 : share(of: i, first: firstActive, target: target) }
        return changed
    }
}
