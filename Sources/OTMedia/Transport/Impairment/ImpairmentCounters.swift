import Synchronization

/// What one direction of an `ImpairmentProxy` did, as a snapshot.
/// `received == forwarded + all drops + (packets still queued inside the proxy)`.
public struct ImpairmentCounters: Sendable, Equatable {
    /// Datagrams that arrived at the proxy.
    public var received: UInt64 = 0
    /// Bytes of the datagrams that arrived.
    public var receivedBytes: UInt64 = 0
    /// Datagrams handed to the kernel for the far side.
    public var forwarded: UInt64 = 0
    /// Bytes of the forwarded datagrams.
    public var forwardedBytes: UInt64 = 0
    /// Dropped by random loss.
    public var droppedByLoss: UInt64 = 0
    /// Dropped at the tail of the bandwidth cap's queue.
    public var droppedByCap: UInt64 = 0
    /// Dropped while the blackhole was on.
    public var droppedByBlackhole: UInt64 = 0
    /// Dropped for want of a free buffer, or because the kernel refused to send them, or
    /// because no client has spoken yet to send replies to.
    public var droppedOther: UInt64 = 0
    /// Held back by the reordering stage.
    public var reordered: UInt64 = 0
    /// When the first forwarded datagram left the proxy's bottleneck, on the proxy's clock
    /// (its scheduled departure time; 0 before any).
    public var firstForwardNanoseconds: UInt64 = 0
    /// When the last forwarded datagram left the proxy's bottleneck, on the proxy's clock.
    public var lastForwardNanoseconds: UInt64 = 0
}

/// The live counters: relaxed atomics written by the proxy thread, read by anyone.
final class ImpairmentCounterStorage: Sendable {
    let received = Atomic<UInt64>(0)
    let receivedBytes = Atomic<UInt64>(0)
    let forwarded = Atomic<UInt64>(0)
    let forwardedBytes = Atomic<UInt64>(0)
    let droppedByLoss = Atomic<UInt64>(0)
    let droppedByCap = Atomic<UInt64>(0)
    let droppedByBlackhole = Atomic<UInt64>(0)
    let droppedOther = Atomic<UInt64>(0)
    let reordered = Atomic<UInt64>(0)
    let firstForward = Atomic<UInt64>(0)
    let lastForward = Atomic<UInt64>(0)

    /// Reads every counter (each one atomically; the set is not one instant).
    var snapshot: ImpairmentCounters {
        ImpairmentCounters(
            received: received.load(ordering: .relaxed),
            receivedBytes: receivedBytes.load(ordering: .relaxed),
            forwarded: forwarded.load(ordering: .relaxed),
            forwardedBytes: forwardedBytes.load(ordering: .relaxed),
            droppedByLoss: droppedByLoss.load(ordering: .relaxed),
            droppedByCap: droppedByCap.load(ordering: .relaxed),
            droppedByBlackhole: droppedByBlackhole.load(ordering: .relaxed),
            droppedOther: droppedOther.load(ordering: .relaxed),
            reordered: reordered.load(ordering: .relaxed),
            firstForwardNanoseconds: firstForward.load(ordering: .relaxed),
            lastForwardNanoseconds: lastForward.load(ordering: .relaxed))
    }
}
