/// Fixed slots that turn objects into small integer handles and back, so state machines
/// that speak in handles (the jitter buffers, the retransmission history) can hold
/// pooled packet buffers without knowing what they are.
///
/// Cost: O(1) insert and remove through a free-index stack; storage made once. Not
/// thread-safe: its owner's lock or thread guards it.
final class HandleTable<Element: AnyObject> {
    private var slots: [Element?]
    private var free: [Int]

    /// A table of `capacity` slots.
    init(capacity: Int) {
        slots = Array(repeating: nil, count: capacity)
        free = Array((0..<capacity).reversed())
    }

    /// Stores `element`, or nil when every slot is taken.
    func insert(_ element: Element) -> Int? {
        guard let handle = free.popLast() else { return nil }
        slots[handle] = element
        return handle
    }

    /// The element behind `handle`, still stored.
    subscript(handle: Int) -> Element? { slots[handle] }

    /// Takes the element out and frees its handle.
    func remove(_ handle: Int) -> Element? {
        guard let element = slots[handle] else { return nil }
        slots[handle] = nil
        free.append(handle)
        return element
    }

    /// Slots in use.
    var count: Int { slots.count - free.count }
}
