/// The work of one pipeline direction, run by a `PipelineThread`.
///
/// Every method is called on the thread only, one at a time, so a handler keeps its state
/// (jitter buffer, packetizer, RTCP timers) in plain stored properties without locks.
/// Methods must not block: the thread itself waits for sockets, wake-ups and deadlines.
public protocol PipelineHandler: AnyObject {
    /// Called once on the thread before the loop starts.
    func pipelineStarted(now: UInt64)
    /// The socket at `index` (in the order given to the thread) is readable, or has a
    /// pending error (ICMP unreachable) that the next receive call will consume. Receive
    /// until the socket says it would block, or a bounded number of batches.
    func socketReadable(_ index: Int, now: UInt64)
    /// Another thread called `PipelineThread.wake()` (new frames queued, settings changed).
    func wokenUp(now: UInt64)
    /// Periodic work (RTCP reports, retransmission timers, paced sends). Called after every
    /// turn of the loop — events, wake-ups or the last deadline passing — and returns the
    /// next deadline in nanoseconds on the thread's clock, or nil for none.
    func runTimers(now: UInt64) -> UInt64?
    /// Called on the thread right after `wokenUp`: the sockets to poll from now on when
    /// the handler changed its socket list (indices in `socketReadable` then follow the
    /// new list), nil when nothing changed. Lets a running thread gain and lose sockets
    /// without a restart; the thread re-polls (no readiness is lost: `ppoll` is
    /// level-triggered). Cost on the thread: one small allocation per change, none per
    /// packet.
    func updatedSockets() -> [UDPSocket]?
    /// Called once on the thread after the loop has stopped.
    func pipelineStopped(now: UInt64)
}

extension PipelineHandler {
    /// Does nothing.
    public func pipelineStarted(now: UInt64) {}
    /// Does nothing.
    public func socketReadable(_ index: Int, now: UInt64) {}
    /// Does nothing.
    public func wokenUp(now: UInt64) {}
    /// No timers.
    public func runTimers(now: UInt64) -> UInt64? { nil }
    /// The socket list never changes.
    public func updatedSockets() -> [UDPSocket]? { nil }
    /// Does nothing.
    public func pipelineStopped(now: UInt64) {}
}
