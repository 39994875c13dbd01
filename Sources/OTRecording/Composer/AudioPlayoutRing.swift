/// One stream's decoded audio (48 kHz mono Int16) placed on the composer's timeline, for
/// the mixer: sample positions count from the composer's start, and each packet lands at
/// the position its RTP timestamp gives, anchored on the arrival of the first packet plus
/// a playout delay. The mixer reads (and clears) the samples of each output instant.
///
/// So a composer thread that runs late (a loaded machine) still finds the audio of the
/// instants it renders, jitter up to the playout delay costs nothing, and a lost packet is
/// a gap of silence in its place. A packet more than `reanchorSamples` from where its
/// arrival says it should be (a sender restart, clock drift) re-anchors the stream.
/// Cost: `capacity` samples allocated once; per packet a copy, per mix an add. One thread.
final class AudioPlayoutRing {
    private let storage: UnsafeMutablePointer<Int16>
    let capacity: Int
    /// Samples between arrival and playout.
    let delaySamples: Int64
    let reanchorSamples: Int64
    private var anchor: (position: Int64, timestamp: UInt32)?
    /// The next position the mixer reads.
    private(set) var readPosition: Int64 = 0
    /// Samples that arrived too late (already played) or too far ahead, dropped.
    private(set) var droppedSamples = 0
    /// Times the stream was re-anchored.
    private(set) var reanchors = 0

    init(capacity: Int = 96_000, delaySamples: Int64 = 1_920, reanchorSamples: Int64 = 9_600) {
        self.capacity = capacity
        self.delaySamples = delaySamples
        self.reanchorSamples = reanchorSamples
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    /// Where a packet stamped `timestamp` that arrived at `arrivalPosition` (samples since
    /// the composer's start) plays.
    func position(timestamp: UInt32, arrivalPosition: Int64) -> Int64 {
        let expected = arrivalPosition + delaySamples
        if let anchor {
            let position = anchor.position + Int64(Int32(bitPattern: timestamp &- anchor.timestamp))
            if abs(position - expected) <= reanchorSamples {
                // Keep the anchor near, so the 32-bit difference never wraps.
                if abs(position - anchor.position) > 1 << 30 { self.anchor = (position, timestamp) }
                return position
            }
            reanchors += 1
        }
        anchor = (expected, timestamp)
        return expected
    }

    /// Places `count` samples at `position`; what is already played or beyond the ring is dropped.
    func write(_ samples: UnsafePointer<Int16>, count: Int, at position: Int64) {
        var start = position
        var source = samples
        var remaining = count
        if start < readPosition {
            let late = Int(min(Int64(remaining), readPosition - start))
            droppedSamples += late
            source += late
            remaining -= late
            start += Int64(late)
        }
        let room = Int(max(0, readPosition + Int64(capacity) - start))
        if remaining > room {
            droppedSamples += remaining - room
            remaining = room
        }
        var index = Int(start % Int64(capacity))
        while remaining > 0 {
            let run = min(remaining, capacity - index)
            (storage + index).update(from: source, count: run)
            source += run
            remaining -= run
            index = (index + run) % capacity
        }
    }

    /// Adds the samples of [`position`, `position + count`) into `mix` and clears them.
    func mix(into mix: UnsafeMutablePointer<Int32>, count: Int, at position: Int64) {
        if position > readPosition {  // skipped ahead: clear what was never read
            clear(from: readPosition, count: Int(min(Int64(capacity), position - readPosition)))
        }
        var index = Int(((position % Int64(capacity)) + Int64(capacity)) % Int64(capacity))
        var done = 0
        while done < count {
            let run = min(count - done, capacity - index)
            for offset in 0..<run { mix[done + offset] += Int32(storage[index + offset]) }
            (storage + index).update(repeating: 0, count: run)
            done += run
            index = (index + run) % capacity
        }
        readPosition = position + Int64(count)
    }

    private func clear(from position: Int64, count: Int) {
        var index = Int(position % Int64(capacity))
        var remaining = count
        while remaining > 0 {
            let run = min(remaining, capacity - index)
            (storage + index).update(repeating: 0, count: run)
            remaining -= run
            index = (index + run) % capacity
        }
    }
}
