import Synchronization

/// ICE consent freshness (RFC 7675) for a running leg, from the client's side: a Binding
/// request to the peer every 4–6 s (5 s ± 20 %, random per check so legs do not beat in
/// step), its success responses checked (FINGERPRINT, MESSAGE-INTEGRITY with the peer's
/// password, a transaction we sent) and counted; no success for `timeout` (30 s) is
/// consent lost: `isConsentLost` turns true and `onConsentLost` is called (OTKit reports
/// an interrupted stream). The checks go on meanwhile; the next authenticated success
/// restores consent: `isConsentLost` turns false and `onConsentRestored` is called. Each
/// loss and each restoration is reported once.
///
/// The checks are what keeps the leg alive at an ICE-lite peer: the router's
/// `ICELiteAgent` refreshes a leg's consent on each valid check from its selected
/// address, so these are sent from the pipeline's own (nominated) socket, signed for the
/// same USERNAME as the nominating checks, with ICE-CONTROLLING and without
/// USE-CANDIDATE (nothing to re-nominate).
///
/// Driven by the pipeline's network thread: `nextCheck(now:socket:)` from its timers,
/// `receive(_:now:)` for each STUN datagram. The counters are atomics, readable from any
/// thread. Cost per check: one HMAC-SHA1 + CRC-32 to write, one `sendmmsg`; per response
/// one parse, CRC-32 and HMAC-SHA1; nothing allocated after `init`.
public final class ICEConsentKeeper: Sendable {
    /// Timing of the checks.
    public struct Timing: Sendable, Equatable {
        /// The mean time between checks (5 s).
        public var interval: UInt64
        /// Each interval is drawn uniformly from `interval` ± this fraction (0.2: 4–6 s).
        public var jitter: Double
        /// Consent is lost after this long without a success (30 s).
        public var timeout: UInt64

        /// RFC 7675's numbers unless given: 5 s ± 20 %, 30 s.
        public init(interval: UInt64 = 5_000_000_000, jitter: Double = 0.2, timeout: UInt64 = 30_000_000_000) {
            self.interval = max(1_000_000, interval)
            self.jitter = min(max(0, jitter), 0.9)
            self.timeout = max(1_000_000, timeout)
        }
    }

    /// The peer the checks go to.
    public let peer: SocketAddress
    /// The timing it runs with.
    public let timing: Timing

    private let checks: ICEControllingCheck
    private let state: Mutex<State>
    private let sent = Atomic<UInt64>(0)
    private let answered = Atomic<UInt64>(0)
    private let ignored = Atomic<UInt64>(0)
    private let lost = Atomic<Bool>(false)
    private let onLost: (@Sendable () -> Void)?
    private let onRestored: (@Sendable () -> Void)?
    private let buffers: [PacketBuffer]
    private let batch = UDPMessageBatch(capacity: 1)

    /// The thread's bookkeeping: when the next check goes, the last success, the
    /// transactions still unanswered (a small ring; a late answer to an old one still counts).
    struct State {
        var nextCheck: UInt64?
        var lastSuccess: UInt64 = 0
        var outstanding = [STUNTransactionID](repeating: STUNTransactionID(head: 0, tail: 0), count: 8)
        var nextSlot = 0
    }

    /// A keeper for the leg whose nominating checks `peer`/`local` were (the same
    /// USERNAME and password). `onConsentLost` runs on the pipeline thread each time
    /// consent is lost, `onConsentRestored` each time a success ends such a loss.
    /// Cost: two small buffers.
    public init(peer: ICEPeer, local: ICECredentials, timing: Timing = Timing(),
                onConsentLost: (@Sendable () -> Void)? = nil, onConsentRestored: (@Sendable () -> Void)? = nil) {
        self.peer = peer.address
        self.timing = timing
        checks = ICEControllingCheck(peer: peer.credentials, local: local)
        state = Mutex(State())
        onLost = onConsentLost
        onRestored = onConsentRestored
        let pool = PacketBufferPool(initialCount: 1, maximumCount: 1, bufferSize: 512, headroom: 0)
        buffers = [pool.take()!]
    }

    /// Consent checks sent.
    public var checksSent: UInt64 { sent.load(ordering: .relaxed) }
    /// Authenticated success responses to our checks received.
    public var successes: UInt64 { answered.load(ordering: .relaxed) }
    /// STUN datagrams that were not an authenticated answer to one of our checks (dropped).
    public var ignoredMessages: UInt64 { ignored.load(ordering: .relaxed) }
    /// True while consent is lost: no success arrived for `timing.timeout`, and none since.
    public var isConsentLost: Bool { lost.load(ordering: .acquiring) }

    /// Sends a check through `socket` when one is due at `now` and declares consent lost
    /// when the last success (or the first call) is older than the timeout. Returns when
    /// to call again. The first call starts the clocks (the leg was just connected: that
    /// counts as consent) and sends the first check one interval later.
    public func nextCheck(now: UInt64, socket: UDPSocket) -> UInt64 {
        var send: STUNTransactionID?
        var expired = false
        let next = state.withLock { state -> UInt64 in
            guard let due = state.nextCheck else {
                state.lastSuccess = now
                state.nextCheck = now &+ drawInterval()
                return state.nextCheck!
            }
            if !lost.load(ordering: .relaxed), now > state.lastSuccess, now - state.lastSuccess >= timing.timeout {
                expired = true
            }
            guard now >= due else { return due }
            let transaction = STUNTransactionID.random()
            state.outstanding[state.nextSlot] = transaction
            state.nextSlot = (state.nextSlot + 1) % state.outstanding.count
            state.nextCheck = now &+ drawInterval()
            send = transaction
            return state.nextCheck!
        }
        if expired, !lost.exchange(true, ordering: .acquiringAndReleasing) { onLost?() }
        if let send { transmit(send, through: socket) }
        return next
    }

    /// Takes one STUN datagram that arrived on the leg's socket: an authenticated success
    /// for a check we sent refreshes consent (restoring it if it was lost) and returns
    /// true; anything else is counted in `ignoredMessages` and returns false.
    @discardableResult
    public func receive(_ datagram: UnsafeRawBufferPointer, now: UInt64) -> Bool {
        guard let transaction = checks.authenticatedSuccess(datagram) else {
            ignored.add(1, ordering: .relaxed)
            return false
        }
        let known = state.withLock { state -> Bool in
            var index = 0
            while index < state.outstanding.count, state.outstanding[index] != transaction { index += 1 }
            guard index < state.outstanding.count, transaction != STUNTransactionID(head: 0, tail: 0) else { return false }
            state.outstanding[index] = STUNTransactionID(head: 0, tail: 0)
            if now > state.lastSuccess { state.lastSuccess = now }
            return true
        }
        guard known else {
            ignored.add(1, ordering: .relaxed)
            return false
        }
        answered.add(1, ordering: .relaxed)
        if lost.exchange(false, ordering: .acquiringAndReleasing) { onRestored?() }
        return true
    }

    private func drawInterval() -> UInt64 {
        let spread = Double(timing.interval) * timing.jitter
        let value = Double(timing.interval) + Double.random(in: -spread ... spread)
        return UInt64(max(1_000_000, value))
    }

    private func transmit(_ transaction: STUNTransactionID, through socket: UDPSocket) {
        let buffer = buffers[0]
        buffer.reset()
        guard let count = try? checks.write(into: buffer.writableBytes, transaction: transaction, nominate: false) else { return }
        buffer.setLength(count)
        buffer.peer = peer
        if (try? socket.send(buffers, maximum: 1, batch: batch))?.count == 1 { sent.add(1, ordering: .relaxed) }
    }
}
