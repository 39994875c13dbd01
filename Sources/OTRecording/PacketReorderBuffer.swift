/// Puts one track's RTP packets back in sequence order within a small window before they
/// are depacketized and written.
///
/// A packet is released as soon as every packet before it has been released. A hole (a
/// lost packet) is given up on when more than `depth` packets wait behind it or the
/// oldest of them waited `timeoutNanoseconds` (measured on arrival times), so a loss costs
/// at most that much delay. Packets older than the release point are late and dropped;
/// repeats are dropped. Sequence numbers are unwrapped to 64 bits, so the 16-bit wrap is
/// just another step.
///
/// Cost: `window × slotSize` bytes allocated once; per packet one copy in and a walk of at
/// most `window` slots when a hole is skipped; no allocation. One thread (the writer).
final class PacketReorderBuffer {
    /// Slots: the furthest a packet may run ahead of the release point.
    let window: Int
    let slotSize: Int
    let depth: Int
    let timeoutNanoseconds: UInt64
    private let storage: UnsafeMutableRawPointer
    private var sequences: [Int64]
    private var lengths: [Int]
    private var arrivals: [UInt64]
    private var expected: Int64?
    private var highest: Int64 = 0
    private var held = 0
    /// Packets that came after their place was released.
    private(set) var latePackets = 0
    /// Repeats of a packet already held.
    private(set) var duplicatePackets = 0
    /// Holes given up on (packets never received).
    private(set) var skippedPackets = 0

    init(window: Int = 64, slotSize: Int, depth: Int, timeoutNanoseconds: UInt64) {
        self.window = max(4, window)
        self.slotSize = slotSize
        self.depth = max(0, min(depth, self.window - 1))
        self.timeoutNanoseconds = timeoutNanoseconds
        storage = .allocate(byteCount: self.window * slotSize, alignment: 16)
        sequences = Array(repeating: -1, count: self.window)
        lengths = Array(repeating: 0, count: self.window)
        arrivals = Array(repeating: 0, count: self.window)
    }

    deinit { storage.deallocate() }

    /// The 64-bit sequence number nearest to the highest seen.
    private func unwrap(_ sequence: UInt16) -> Int64 {
        guard expected != nil else { return Int64(sequence) + 1 << 16 }
        let delta = Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest))
        return highest + Int64(delta)
    }

    /// Takes one packet (`bytes` ≤ slotSize) and releases, in order, every packet that is
    /// now due through `emit` (packet bytes valid only inside the call, arrival time).
    func insert(_ bytes: UnsafeRawBufferPointer, sequence: UInt16, arrival: UInt64,
                _ emit: (UnsafeRawBufferPointer, UInt64) -> Void) {
        guard bytes.count <= slotSize else { return }
        let extended = unwrap(sequence)
        if expected == nil { expected = extended; highest = extended }
        guard var next = expected, extended >= next else {
            latePackets += 1
            return
        }
        if extended - next >= Int64(window) {
            // Far ahead (a burst of loss or a restart): release what is held and jump.
            releaseAll(emit)
            next = extended
            expected = extended
        }
        let slot = Int(extended % Int64(window))
        if sequences[slot] == extended {
            duplicatePackets += 1
            return
        }
        sequences[slot] = extended
        lengths[slot] = bytes.count
        arrivals[slot] = arrival
        if let base = bytes.baseAddress, bytes.count > 0 {
            (storage + slot * slotSize).copyMemory(from: base, byteCount: bytes.count)
        }
        held += 1
        highest = max(highest, extended)
        releaseReady(emit)
        while held > 0, held > depth || waitedTooLong(now: arrival) {
            skipHole()
            releaseReady(emit)
        }
    }

    /// Releases every held packet in order, skipping holes (at stop).
    func drain(_ emit: (UnsafeRawBufferPointer, UInt64) -> Void) { releaseAll(emit) }

    /// Gives up on holes whose followers waited too long at `now` (called when idle).
    func expire(now: UInt64, _ emit: (UnsafeRawBufferPointer, UInt64) -> Void) {
        while held > 0, waitedTooLong(now: now) {
            skipHole()
            releaseReady(emit)
        }
    }

    private func waitedTooLong(now: UInt64) -> Bool {
        guard let first = firstHeldSlot() else { return false }
        return now > arrivals[first] && now - arrivals[first] >= timeoutNanoseconds
    }

    /// The slot of the earliest held packet.
    private func firstHeldSlot() -> Int? {
        guard held > 0, let expected else { return nil }
        for offset in 0..<Int64(window) {
            let slot = Int((expected + offset) % Int64(window))
            if sequences[slot] == expected + offset { return slot }
        }
        return nil
    }

    /// Moves the release point to the earliest held packet.
    private func skipHole() {
        guard let slot = firstHeldSlot(), let expected else { return }
        skippedPackets += Int(sequences[slot] - expected)
        self.expected = sequences[slot]
    }

    private func releaseReady(_ emit: (UnsafeRawBufferPointer, UInt64) -> Void) {
        guard var next = expected else { return }
        while true {
            let slot = Int(next % Int64(window))
            guard sequences[slot] == next else { break }
            sequences[slot] = -1
            held -= 1
            emit(UnsafeRawBufferPointer(start: storage + slot * slotSize, count: lengths[slot]), arrivals[slot])
            next += 1
        }
        expected = next
    }

    private func releaseAll(_ emit: (UnsafeRawBufferPointer, UInt64) -> Void) {
        while held > 0 {
            skipHole()
            releaseReady(emit)
        }
    }
}
