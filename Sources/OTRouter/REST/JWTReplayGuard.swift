import Synchronization

/// Refuses a second use of a project JWT: remembers each accepted `jti` (per API key)
/// until its JWT can no longer be accepted (`exp` plus the clock leeway), then forgets it,
/// so memory is bounded by the requests of one JWT lifetime — and by `capacity`, past which
/// new JWTs are refused until old ones expire. Cost: one lock and a dictionary insert per
/// REST call; a sweep of the expired entries at most once a second.
final class JWTReplayGuard: Sendable {
    /// What `admit` decided.
    enum Verdict: Equatable {
        /// First use: remembered until it expires.
        case fresh
        /// This `jti` was already used within its JWT's lifetime.
        case replayed
        /// `capacity` JWTs are live; refuse until some expire.
        case full
    }

    /// The most `jti`s remembered at once (about 100 B each).
    let capacity: Int
    private struct State {
        var expiries: [String: Int64] = [:]
        var nextSweep: Int64 = 0
    }
    private let state = Mutex(State())

    /// A guard remembering at most `capacity` live JWTs (default 100,000: 333 REST calls a
    /// second sustained over a 5-minute lifetime).
    init(capacity: Int = 100_000) { self.capacity = capacity }

    /// Records `jti` of `apiKey`, remembered until `forgetAfter` (Unix seconds), or says why not.
    func admit(apiKey: String, jti: String, forgetAfter: Int64, now: Int64) -> Verdict {
        let key = apiKey + "\u{0}" + jti
        return state.withLock { state in
            if now >= state.nextSweep {
                state.expiries = state.expiries.filter { $0.value >= now }
                state.nextSweep = now + 1
            }
            if let expiry = state.expiries[key], expiry >= now { return .replayed }
            guard state.expiries.count < capacity else { return .full }
            state.expiries[key] = forgetAfter
            return .fresh
        }
    }

    /// How many `jti`s are remembered now (for tests and metrics).
    var count: Int { state.withLock { $0.expiries.count } }
}
