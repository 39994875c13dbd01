import Synchronization

/// Who may touch a publisher's `PublisherTransport` when: its transport thread for each of
/// its turns (`locked`), and the video capture thread for a direct send of the frame it
/// just handed over (`sendDirect`). The transport's pacer, SRTP contexts (libsrtp's are
/// not thread-safe) and transport-wide numbers are serialised by one lock.
///
/// The capture thread only ever try-locks: when the transport thread is in a turn (its
/// sends, resends and RTCP happen inside it) the capture thread falls back to the
/// hand-over and wake-up, so it never waits behind I/O; and it sends its own batch after
/// leaving the lock, so the transport thread waits at most for one frame's protects.
///
/// Cost: one uncontended lock per transport-thread turn and per direct send; no
/// allocation.
final class PublisherTransportAccess: @unchecked Sendable {
    private let lock = Mutex(())
    /// Touched only with `lock` held.
    private let transport: PublisherTransport
    private let pipeline: PublisherPipeline

    /// Guards `transport`, which belongs to `pipeline`.
    init(transport: PublisherTransport, pipeline: PublisherPipeline) {
        self.transport = transport
        self.pipeline = pipeline
    }

    /// Transport thread: runs `body` with the lock held (waiting for a direct send's
    /// protects, never for its send).
    func locked<Result: Sendable>(_ body: () -> Result) -> Result {
        lock.withLock { _ in body() }
    }

    /// Capture thread, after handing a frame's packets over: when the transport thread is
    /// not in a turn, paces, numbers and protects them into `batch` under the lock
    /// (`PublisherTransport.pumpDirect`) and sends `batch` after leaving it. Returns true
    /// when the transport thread must still be woken (the lock was taken, relayed, or
    /// packets stay queued); false saves that wake-up and its `ppoll` and `read`.
    func sendDirect(_ batch: TransportSendBatch, now: UInt64) -> Bool {
        let transport = self.transport
        guard let wake = lock.withLockIfAvailable({ _ in transport.pumpDirect(into: batch, now: now) }) else {
            return true
        }
        if !wake { pipeline.transportCounters.directSends.add(1, ordering: .relaxed) }
        batch.send(pipeline: pipeline, stores: transport.videoStores)
        return wake
    }
}
