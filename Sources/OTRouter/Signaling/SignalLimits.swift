/// OpenTok's signal limits: a type of at most 128 characters of `A–Z a–z 0–9 - _ ~`
/// (may be empty) and data of at most 8192 bytes of UTF-8.
enum SignalLimits {
    static let maximumTypeLength = 128
    static let maximumDataBytes = 8192

    /// Why a signal is refused, if it is.
    enum Violation: Equatable {
        case typeTooLong(Int)
        case typeCharacters
        case dataTooLong(Int)

        /// OpenTok's session error code for a client: 1461 bad type, 1413 data too long.
        var code: Int {
            switch self {
            case .typeTooLong, .typeCharacters: return 1461
            case .dataTooLong: return 1413
            }
        }

        /// The REST status: 413 for anything too long, 400 for bad characters.
        var httpStatus: Int {
            switch self {
            case .typeTooLong, .dataTooLong: return 413
            case .typeCharacters: return 400
            }
        }

        var message: String {
            switch self {
            case .typeTooLong(let n): return "the signal type has \(n) characters; the limit is \(maximumTypeLength)"
            case .typeCharacters: return "the signal type may contain only A-Z a-z 0-9 - _ ~"
            case .dataTooLong(let n): return "the signal data has \(n) bytes; the limit is \(maximumDataBytes)"
            }
        }
    }

    static func check(type: String, data: String) -> Violation? {
        let typeLength = type.utf8.count
        if typeLength > maximumTypeLength { return .typeTooLong(typeLength) }
        let allowed = type.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F || byte == 0x7E
        }
        if !allowed { return .typeCharacters }
        let dataLength = data.utf8.count
        if dataLength > maximumDataBytes { return .dataTooLong(dataLength) }
        return nil
    }
}

/// One connection's signal rate limit: a token bucket that holds `rate` signals and refills
/// at `rate` per second, so a burst of `rate` passes and a steady flood is held to `rate`
/// a second. A plain value kept in the connection's record (under the hub's lock). O(1).
struct SignalBudget {
    private var tokens: Double?
    private var last = ContinuousClock.now

    /// Takes one signal's token; false when the bucket is empty (the signal is refused).
    mutating func take(rate: Int, now: ContinuousClock.Instant = .now) -> Bool {
        let capacity = Double(max(rate, 1))
        let elapsed = now - last
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        last = now
        var available = min(capacity, (tokens ?? capacity) + max(0, seconds) * capacity)
        guard available >= 1 else {
            tokens = available
            return false
        }
        available -= 1
        tokens = available
        return true
    }
}
