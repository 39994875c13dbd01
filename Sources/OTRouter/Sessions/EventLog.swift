/// The events the router sent (or would have sent) to one connection that the client has
/// not acknowledged yet, oldest first, each as its encoded text with its sequence number.
/// On resume the router sends again those after the number the client says it handled,
/// so nothing is lost across a reconnection (issue 15).
///
/// Bounded: at most `capacity` events and `byteCapacity` bytes of text; past either the
/// oldest are dropped and remembered as lost (`droppedThrough`), and a resume that needs
/// one of them is refused. Cost: one array slot per event (the text is shared with every
/// other recipient of a broadcast); appends and acknowledgements are amortized O(1).
struct EventLog {
    private var entries: [(seq: Int, text: String)] = []
    /// Entries before `head` are gone (compacted away now and then).
    private var head = 0
    /// Bytes of text held.
    private(set) var bytes = 0
    /// The highest sequence number dropped for lack of room (0: none).
    private(set) var droppedThrough = 0
    /// How many events were dropped for lack of room.
    private(set) var droppedCount = 0

    /// Events held.
    var count: Int { entries.count - head }

    /// Keeps `text` (event `seq`, higher than any before), dropping the oldest to stay
    /// within `capacity` events and `byteCapacity` bytes.
    mutating func append(seq: Int, text: String, capacity: Int, byteCapacity: Int) {
        let size = text.utf8.count
        entries.append((seq, text))
        bytes += size
        while count > capacity || (bytes > byteCapacity && count > 0) {
            let dropped = entries[head]
            droppedThrough = dropped.seq
            droppedCount += 1
            bytes -= dropped.text.utf8.count
            head += 1
        }
        compactIfWorthIt()
    }

    /// Forgets the events up to `seq` (the client handled them).
    mutating func acknowledge(through seq: Int) {
        while head < entries.count, entries[head].seq <= seq {
            bytes -= entries[head].text.utf8.count
            head += 1
        }
        compactIfWorthIt()
    }

    /// Whether an event after `seq` was dropped for lack of room (a resume from `seq`
    /// would miss it).
    func lostEvents(after seq: Int) -> Bool { droppedThrough > seq }

    /// The texts of the events after `seq`, oldest first.
    func texts(after seq: Int) -> [String] {
        entries[head...].filter { $0.seq > seq }.map(\.text)
    }

    private mutating func compactIfWorthIt() {
        if head == entries.count {
            entries.removeAll(keepingCapacity: entries.capacity <= 256)
            head = 0
        } else if head >= 64, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
