import Synchronization

/// Who may touch a publisher's `PublisherTransport` when: its transport thread for each of
/// its turns (`turn`, `locked`), and the video capture thread for a direct send of the
/// frame it just handed over (`sendDirect`). The transport's pacer, SRTP contexts
/// (libsrtp's are not thread-safe) and transport-wide numbers are serialised by one lock.
///
/// No thread holds the lock across a system call: each fills a batch under it and sends
/// the batch after leaving it (`TransportSendBatch`); while one batch is on its way out
/// the other thread takes no packet (`PublisherTransport.batchInFlight`), so datagrams
/// still leave in numbering order. The capture thread only ever try-locks and falls back
/// to the hand-over and wake-up, so it never waits; the transport thread waits at most
/// for one frame's protects.
///
/// Cost: one uncontended lock per transport-thread turn and per direct send; no
/// allocation.
final class PublisherTransportAccess: @unchecked Sendable {
    private let lock = Mutex(())
    /// Touched only with `lock` held, but for its constants and `ownBatch` (the transport
    /// thread's alone), which are read outside it.
    private let transport: PublisherTransport
    private let pipeline: PublisherPipeline

    /// Guards `transport`, which belongs to `pipeline`.
    init(transport: PublisherTransport, pipeline: PublisherPipeline) {
        self.transport = transport
        self.pipeline = pipeline
    }

    /// Transport thread: runs `body` with the lock held; `body` must not do I/O.
    func locked<Result: Sendable>(_ body: (PublisherTransport) -> Result) -> Result {
        let transport = self.transport
        return lock.withLock { _ in body(transport) }
    }

    /// Transport thread: fills its batch under the lock and sends it outside, until the
    /// pacer lets nothing more out now. Returns when to come back (nil: nothing queued
    /// and no padding). Cost: one lock and one `sendmmsg` per 64 packets let out.
    func turn(now: UInt64) -> UInt64? {
        let transport = self.transport
        while true {
            let step = lock.withLock { _ in transport.fill(now: now) }
            sendOutsideLock(transport.ownBatch)
            if !step.full { return step.next }
        }
    }

    /// Sends a batch filled under the lock and lets the other thread take packets again.
    private func sendOutsideLock(_ batch: TransportSendBatch) {
        guard !batch.isEmpty else { return }
        batch.send(pipeline: pipeline, stores: transport.videoStores)
        transport.batchInFlight.store(false, ordering: .releasing)
    }

    /// Capture thread, after handing a frame's packets over: when the transport thread is
    /// not in a turn and no batch is on its way out, paces, numbers and protects them into
    /// `batch` under the lock (`PublisherTransport.pumpDirect`) and sends `batch` after
    /// leaving it. Returns true when the transport thread must still be woken (the lock
    /// was taken, relayed, a batch in flight, or packets stay queued); false saves that
    /// wake-up and its `ppoll` and `read`.
    func sendDirect(_ batch: TransportSendBatch, now: UInt64) -> Bool {
        let transport = self.transport
        guard transport.acceptsDirectSends,
              let wake = lock.withLockIfAvailable({ _ in transport.pumpDirect(into: batch, now: now) }) else {
            return true
        }
        sendOutsideLock(batch)
        if !wake { pipeline.transportCounters.directSends.add(1, ordering: .relaxed) }
        return wake
    }
}
