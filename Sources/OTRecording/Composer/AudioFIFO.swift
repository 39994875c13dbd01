/// One stream's decoded audio (48 kHz mono Int16) waiting to be mixed: a ring with a
/// playout start threshold and a latency cap.
///
/// Playout starts once `prebuffer` samples are queued (and again after an underrun), so
/// packet jitter does not chop the sound; when more than `maximumFill` samples wait (the
/// sender's clock runs fast, a burst arrived) the oldest are dropped down to `prebuffer`,
/// so the stream's audio never lags its video by more than that. Cost: `capacity` samples
/// allocated once; per call a copy. One thread.
final class AudioFIFO {
    private let storage: UnsafeMutablePointer<Int16>
    let capacity: Int
    let prebuffer: Int
    let maximumFill: Int
    private var head = 0
    private(set) var count = 0
    private var playing = false
    /// Samples dropped to keep latency down or on overflow.
    private(set) var droppedSamples = 0
    /// Samples the mixer wanted while the stream had none (silence played).
    private(set) var underrunSamples = 0

    init(capacity: Int = 48_000, prebuffer: Int = 1_920, maximumFill: Int = 9_600) {
        self.capacity = capacity
        self.prebuffer = min(prebuffer, capacity)
        self.maximumFill = min(max(maximumFill, prebuffer), capacity)
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Appends `count` samples (dropping the oldest if the ring would overflow).
    func write(_ samples: UnsafePointer<Int16>, count written: Int) {
        var source = samples
        var remaining = written
        if remaining > capacity {
            droppedSamples += remaining - capacity
            source += remaining - capacity
            remaining = capacity
        }
        if count + remaining > capacity { discard(count + remaining - capacity) }
        var tail = (head + count) % capacity
        while remaining > 0 {
            let run = min(remaining, capacity - tail)
            (storage + tail).update(from: source, count: run)
            source += run
            remaining -= run
            count += run
            tail = (tail + run) % capacity
        }
        if count > maximumFill { discard(count - prebuffer) }
    }

    /// Appends `count` samples of silence.
    func writeSilence(count silent: Int) {
        var remaining = min(silent, capacity)
        if count + remaining > capacity { discard(count + remaining - capacity) }
        var tail = (head + count) % capacity
        while remaining > 0 {
            let run = min(remaining, capacity - tail)
            (storage + tail).update(repeating: 0, count: run)
            remaining -= run
            count += run
            tail = (tail + run) % capacity
        }
        if count > maximumFill { discard(count - prebuffer) }
    }

    /// Adds the next `wanted` samples into `mix` (silence where it has none, or while it
    /// prebuffers).
    func mix(into mix: UnsafeMutablePointer<Int32>, count wanted: Int) {
        if !playing {
            guard count >= prebuffer else { return }
            playing = true
        }
        let available = min(wanted, count)
        var taken = 0
        while taken < available {
            let run = min(available - taken, capacity - head)
            for index in 0..<run { mix[taken + index] += Int32(storage[head + index]) }
            head = (head + run) % capacity
            count -= run
            taken += run
        }
        if available < wanted {
            underrunSamples += wanted - available
            playing = false
        }
    }

    private func discard(_ samples: Int) {
        let dropped = min(samples, count)
        head = (head + dropped) % capacity
        count -= dropped
        droppedSamples += dropped
    }
}
