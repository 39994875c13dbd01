import Glibc
import Synchronization

/// What a `WebServer` lets a client hold before it has proved who it is: the
/// unauthenticated-WebSocket deadline and cap, and the descriptor reserve. Immutable;
/// read on the service thread. Cost: nothing until a limit is hit.
struct ExposureLimits: Sendable {
    /// Seconds an unauthenticated WebSocket may stay open; nil: no deadline.
    let unauthenticatedDeadlineSeconds: Int32?
    /// Most unauthenticated WebSockets at once: the configured cap, but never more than half
    /// the descriptors the server may use, so they cannot starve everyone else; nil: no cap.
    let maxUnauthenticated: Int?
    /// Descriptor numbers from this one up are closed as soon as they are accepted.
    let firstRefusedDescriptor: Int32

    /// Reads the soft `RLIMIT_NOFILE` now: call it after the process has raised its limit.
    init(_ configuration: WebServerConfiguration) {
        unauthenticatedDeadlineSeconds = configuration.unauthenticatedDeadlineSeconds.map { Int32(clamping: max(1, $0)) }
        var limit = rlimit()
        let soft = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 && limit.rlim_cur != rlim_t.max ? Int(clamping: limit.rlim_cur) : Int(Int32.max)
        let reserve = max(0, configuration.descriptorReserve)
        // Never below a handful, so a tiny limit still serves someone.
        let first = max(16, soft - reserve)
        firstRefusedDescriptor = Int32(clamping: first)
        maxUnauthenticated = configuration.maxUnauthenticatedWebSockets.map { min(max(0, $0), first / 2) }
    }

    /// Whether a socket accepted on `descriptor` may stay: Linux hands out the lowest free
    /// number, so a number in the reserve means every lower one is taken.
    func admits(descriptor: Int32, counters: WebServerCounters) -> Bool {
        guard descriptor >= firstRefusedDescriptor else { return true }
        counters.descriptorRefused.add(1, ordering: .relaxed)
        return false
    }
}
