import OTMedia
import Synchronization

/// An audio source that passes frames through and remembers their peak level (for the
/// audio level delegates). Cost per frame: one pass over the samples; no allocation.
final class MeteredAudioSource: AudioSource {
    let inner: any AudioSource
    private let peak = Atomic<Int32>(0)

    init(_ inner: any AudioSource) { self.inner = inner }

    var format: AudioFormat { inner.format }
    var statistics: CaptureStatistics { inner.statistics }
    func start() throws(MediaError) { try inner.start() }
    func stop() { inner.stop() }

    func nextFrame(timeoutMilliseconds: Int) throws(MediaError) -> AudioFrame? {
        guard let frame = try inner.nextFrame(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        var highest: Int32 = 0
        for sample in frame.buffer { highest = max(highest, abs(Int32(sample))) }
        var current = peak.load(ordering: .relaxed)
        while highest > current {
            let (exchanged, original) = peak.compareExchange(expected: current, desired: highest, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
        return frame
    }

    /// The peak since the last call, 0...1, and resets it.
    func takeLevel() -> Float { Float(peak.exchange(0, ordering: .relaxed)) / 32768 }
}
