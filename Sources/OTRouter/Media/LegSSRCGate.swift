/// Which sender SSRCs a leg's client may use: the first `capacity` that authenticated,
/// and no others.
///
/// Why: libsrtp2 keeps one stream per SSRC it has authenticated (cloned from the session's
/// template) and looks streams up one by one. A client holds its own leg keys, so without a
/// bound it could authenticate packets under ever new SSRCs and grow that list without
/// limit: with random SSRCs a fuzz run of the router's RTCP path fell from ~2,000 to ~120
/// packets a second within 500,000 inputs, and memory grew with it. A datagram under an
/// SSRC the gate does not know is let through to `unprotect` only while there is room,
/// and the SSRC is admitted only once that datagram authenticated, so someone without
/// the keys cannot fill the gate and lock the client out.
///
/// 8 covers every SSRC a client of this router sends under: a publisher's audio, up to
/// three video encodings and their RTCP; a subscriber's one or two.
/// Forwarding thread only; a fixed array, no allocation, O(capacity) per datagram.
struct LegSSRCGate {
    /// How many sender SSRCs a leg takes.
    static let capacity = 8

    private var known: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// How many of `known` are in use.
    private(set) var count = 0

    /// What `check` answers.
    enum Verdict: Equatable {
        /// An SSRC that already authenticated: unprotect as usual.
        case known
        /// New, and there is room: unprotect, then `admit` it if that succeeded.
        case trial
        /// New, and the gate is full: drop without unprotecting.
        case refused
    }

    /// Whether a datagram from sender `ssrc` may be unprotected.
    func check(_ ssrc: UInt32) -> Verdict {
        if contains(ssrc) { return .known }
        return count < Self.capacity ? .trial : .refused
    }

    /// Admits `ssrc` after a datagram under it authenticated (a no-op when known or full).
    mutating func admit(_ ssrc: UInt32) {
        guard count < Self.capacity, !contains(ssrc) else { return }
        withUnsafeMutableBytes(of: &known) { $0.storeBytes(of: ssrc, toByteOffset: count * 4, as: UInt32.self) }
        count += 1
    }

    private func contains(_ ssrc: UInt32) -> Bool {
        withUnsafeBytes(of: known) { bytes in
            for index in 0..<count where bytes.load(fromByteOffset: index * 4, as: UInt32.self) == ssrc { return true }
            return false
        }
    }
}
