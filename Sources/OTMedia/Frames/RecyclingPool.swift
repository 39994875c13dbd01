import Synchronization

/// A fixed set of reusable objects, handed out again once nobody else holds them.
///
/// The pool keeps a strong reference to every object it made. An object is free when
/// that reference is the only one left (`isKnownUniquelyReferenced`), so consumers
/// never return anything by hand: dropping the last reference recycles it. This is how
/// the capture and decode paths allocate nothing per frame in steady state.
///
/// Cost: `take()` takes a lock and scans at most `maximumCount` references; it allocates
/// only while the pool is still growing towards `maximumCount`.
public final class RecyclingPool<Element: AnyObject & Sendable>: Sendable {
    private struct State: ~Copyable {
        var elements: [Element]
        var next = 0
        var created = 0
    }

    private let state: Mutex<State>
    private let make: @Sendable () -> Element
    /// The most objects this pool will ever create.
    public let maximumCount: Int

    /// Creates a pool that makes objects with `make`, `initialCount` of them at once and
    /// up to `maximumCount` in all.
    public init(initialCount: Int = 2, maximumCount: Int = 8, make: @escaping @Sendable () -> Element) {
        precondition(maximumCount >= 1 && initialCount <= maximumCount, "pool sizes out of range")
        self.make = make
        self.maximumCount = maximumCount
        var elements = [Element]()
        elements.reserveCapacity(maximumCount)
        for _ in 0..<initialCount { elements.append(make()) }
        self.state = Mutex(State(elements: elements, created: initialCount))
    }

    /// An object nobody else holds, or nil when all `maximumCount` objects are in use
    /// (the caller decides: drop the frame, or wait).
    public func take() -> Element? {
        state.withLock { state -> Element? in
            let count = state.elements.count
            for step in 0..<count {
                let index = (state.next + step) % count
                if isKnownUniquelyReferenced(&state.elements[index]) {
                    // Pairs with the release in the last holder's swift_release, so its
                    // writes to the object happen before ours.
                    atomicMemoryFence(ordering: .acquiring)
                    state.next = (index + 1) % count
                    return state.elements[index]
                }
            }
            guard count < maximumCount else { return nil }
            let element = make()
            state.elements.append(element)
            state.created += 1
            return element
        }
    }

    /// How many objects the pool has created so far (a steady state stops growing).
    public var createdCount: Int { state.withLock { $0.created } }
}
