import Dispatch
import OTMedia
import Synchronization

/// Where closed subscriber legs go to be freed, off the forwarding threads.
///
/// Freeing a leg frees its two SRTP sessions, and libsrtp's crypto backend (NSS on
/// Debian) takes time per session that grows with the sessions alive: 2,000 legs took
/// seconds to free. A forwarding thread that freed them itself stopped forwarding for
/// that long, so it hands them here; a serial background queue lets them go, then gives
/// the freed pages back to the kernel (`HeapMemory.returnFreedPages`) once a burst has
/// passed (at most every half second). Cost on the forwarding thread: one small object
/// and one `async` per membership change.
final class LegReaper: Sendable {
    /// Legs moved in by the forwarding thread; emptied on the reaper's queue, so the
    /// last reference to each leg goes there whoever releases the parcel.
    private final class Parcel: @unchecked Sendable {
        var legs: [SubscriberLeg]
        init(_ legs: [SubscriberLeg]) { self.legs = legs }
    }

    private let queue = DispatchQueue(label: "otk-sfu-reaper", qos: .utility)
    private let waiting = Atomic<Int>(0)
    private let trimScheduled = Atomic<Bool>(false)

    /// Counts `count` legs as awaiting release before their owner closes them, so
    /// `legsWaiting` never reads 0 while a closed leg (its socket already gone) has not
    /// reached `release` yet. Every `expect` is followed by a `release` of those legs.
    func expect(_ count: Int) {
        if count > 0 { waiting.add(count, ordering: .relaxed) }
    }

    /// Takes `legs` (closed, used by no thread any more, counted by `expect`) and frees
    /// them on the reaper's queue; `legs` is left empty.
    func release(_ legs: inout [SubscriberLeg]) {
        guard !legs.isEmpty else { return }
        let parcel = Parcel(legs)
        legs = []
        queue.async { [self] in
            let count = parcel.legs.count
            parcel.legs.removeAll()
            waiting.subtract(count, ordering: .relaxed)
            scheduleTrim()
        }
    }

    /// Legs handed over and not freed yet.
    var legsWaiting: Int { waiting.load(ordering: .relaxed) }

    /// Runs one `returnFreedPages` half a second from now unless one is already due.
    private func scheduleTrim() {
        guard !trimScheduled.exchange(true, ordering: .relaxed) else { return }
        queue.asyncAfter(deadline: .now() + 0.5) { [self] in
            trimScheduled.store(false, ordering: .relaxed)
            HeapMemory.returnFreedPages()
        }
    }
}
