import Glibc
import OTMedia

/// Test signals and measurements for the Opus tests (all made and measured here).
enum OpusTestSignals {
    /// Fills `frame` (its whole format) with a sine of `frequency` Hz starting at absolute
    /// sample `start`; channel c gets amplitude `amplitudes[c]` (full scale = 1).
    static func sine(into frame: AudioFrame, start: Int, frequency: Double, amplitudes: [Double]) {
        let channels = frame.format.channels
        frame.samplesPerChannel = frame.format.samplesPerChannel
        for i in 0..<frame.samplesPerChannel {
            let phase = 2 * Double.pi * frequency * Double(start + i) / Double(frame.format.sampleRate)
            for c in 0..<channels {
                frame.samples[i * channels + c] = Int16((sin(phase) * amplitudes[c] * 32767).rounded())
            }
        }
    }

    /// A voiced, speech-like signal whose pitch jumps every 90 ms (three harmonics of
    /// 150–330 Hz under a slow envelope): what PLC cannot predict across a jump.
    static func voice(into frame: AudioFrame, start: Int) {
        let channels = frame.format.channels
        let rate = Double(frame.format.sampleRate)
        frame.samplesPerChannel = frame.format.samplesPerChannel
        let pitches = [150.0, 240.0, 190.0, 330.0, 210.0, 280.0]
        for i in 0..<frame.samplesPerChannel {
            let n = start + i
            let segment = n / 4320
            let f0 = pitches[segment % pitches.count]
            let local = Double(n - segment * 4320) / rate
            let envelope = 0.6 + 0.4 * sin(2 * Double.pi * 3 * Double(n) / rate)
            var value = 0.0
            for (h, weight) in [(1.0, 0.5), (2.0, 0.3), (3.0, 0.2)] {
                value += weight * sin(2 * Double.pi * f0 * h * local)
            }
            let sample = Int16((value * envelope * 0.4 * 32767).rounded())
            for c in 0..<channels { frame.samples[i * channels + c] = sample }
        }
    }

    /// One channel of interleaved samples as Doubles in -1...1.
    static func channel(_ samples: [Int16], _ c: Int, of channels: Int) -> [Double] {
        stride(from: c, to: samples.count, by: channels).map { Double(samples[$0]) / 32767 }
    }

    /// Root mean square.
    static func rms(_ x: [Double]) -> Double {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0) { $0 + $1 * $1 } / Double(x.count)).squareRoot()
    }

    /// Decibels of a ratio of amplitudes.
    static func decibels(_ ratio: Double) -> Double { 20 * log10(ratio) }
}
