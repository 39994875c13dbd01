import Glibc

/// Measurements on PCM audio for tests, diagnostics and the adaptation layer: level and
/// the frequency of the strongest tone. Not for per-frame paths: `dominantFrequency`
/// copies the samples and costs O(n log n + 100 n) floating-point operations.
public enum AudioAnalysis {
    /// Root mean square of `samples`, in sample units (a full-scale sine gives
    /// 32767/√2 ≈ 23170). 0 for no samples. Cost: one pass, no allocation.
    public static func rms(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for sample in samples {
            let value = Double(sample)
            sum += value * value
        }
        return (sum / Double(samples.count)).squareRoot()
    }

    /// Root mean square of `samples`; see `rms(_:)` for buffers.
    public static func rms(_ samples: [Int16]) -> Double {
        samples.withUnsafeBufferPointer { rms($0) }
    }

    /// The frequency in Hz of the strongest sinusoid in one channel of interleaved
    /// `samples`, or nil for silence or fewer than 64 samples per channel.
    ///
    /// Method: the mean is removed; a Hann-windowed, averaged FFT (blocks of up to 8192
    /// samples) finds the strongest bin; a Goertzel scan over the whole signal in steps
    /// of 1/32 bin around it, refined by parabolic interpolation, gives the estimate.
    /// A clean tone of 0.5 s at 48 kHz comes out within a few hundredths of a hertz.
    public static func dominantFrequency(samples: UnsafeBufferPointer<Int16>, sampleRate: Int,
                                         channels: Int = 1, channel: Int = 0) -> Double? {
        precondition(channels >= 1 && (0..<channels).contains(channel), "channel out of range")
        let count = samples.count / channels
        guard count >= 64, sampleRate > 0 else { return nil }
        var signal = [Double](repeating: 0, count: count)
        var mean = 0.0
        for index in 0..<count {
            signal[index] = Double(samples[index * channels + channel])
            mean += signal[index]
        }
        mean /= Double(count)
        var energy = 0.0
        for index in 0..<count {
            signal[index] -= mean
            energy += signal[index] * signal[index]
        }
        guard energy > 0 else { return nil }

        // Coarse: the strongest FFT bin of the averaged, windowed spectrum.
        var size = 64
        while size * 2 <= min(count, 8192) { size *= 2 }
        let window = hann(size)
        var power = [Double](repeating: 0, count: size / 2)
        var real = [Double](repeating: 0, count: size)
        var imaginary = [Double](repeating: 0, count: size)
        var start = 0
        while start + size <= count {
            for index in 0..<size {
                real[index] = signal[start + index] * window[index]
                imaginary[index] = 0
            }
            fft(&real, &imaginary)
            for bin in 0..<(size / 2) {
                power[bin] += real[bin] * real[bin] + imaginary[bin] * imaginary[bin]
            }
            start += size / 2
        }
        var peak = 1
        for bin in 1..<(size / 2) where power[bin] > power[peak] { peak = bin }
        let binWidth = Double(sampleRate) / Double(size)

        // Fine: Goertzel over the whole (windowed) signal around the peak bin.
        let whole = hann(count)
        for index in 0..<count { signal[index] *= whole[index] }
        let step = binWidth / 32
        let low = max(step, (Double(peak) - 1.5) * binWidth)
        let high = min(Double(sampleRate) / 2 - step, (Double(peak) + 1.5) * binWidth)
        var best = (frequency: low, power: -1.0)
        var previous = -1.0
        var beforeBest = -1.0
        var afterBest = -1.0
        var frequency = low
        while frequency <= high {
            let value = signal.withUnsafeBufferPointer { goertzel($0, frequency: frequency, sampleRate: Double(sampleRate)) }
            if value > best.power {
                best = (frequency, value)
                beforeBest = previous
                afterBest = -1
            } else if afterBest < 0 && frequency - best.frequency < step * 1.5 {
                afterBest = value
            }
            previous = value
            frequency += step
        }
        guard beforeBest >= 0, afterBest >= 0 else { return best.frequency }
        let curvature = beforeBest - 2 * best.power + afterBest
        guard curvature < 0 else { return best.frequency }
        let offset = 0.5 * (beforeBest - afterBest) / curvature
        return best.frequency + max(-0.5, min(0.5, offset)) * step
    }

    /// The strongest frequency in an array of interleaved samples; see the buffer form.
    public static func dominantFrequency(samples: [Int16], sampleRate: Int,
                                         channels: Int = 1, channel: Int = 0) -> Double? {
        samples.withUnsafeBufferPointer {
            dominantFrequency(samples: $0, sampleRate: sampleRate, channels: channels, channel: channel)
        }
    }

    /// A Hann window of `count` points.
    private static func hann(_ count: Int) -> [Double] {
        guard count > 1 else { return [1] }
        let scale = 2 * Double.pi / Double(count - 1)
        return (0..<count).map { 0.5 - 0.5 * cos(scale * Double($0)) }
    }

    /// Power of `signal` at `frequency` (Goertzel's recurrence).
    private static func goertzel(_ signal: UnsafeBufferPointer<Double>, frequency: Double, sampleRate: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / sampleRate)
        var previous = 0.0
        var beforePrevious = 0.0
        for value in signal {
            let current = value + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        return previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    }

    /// In-place iterative radix-2 FFT; `real.count` must be a power of two.
    private static func fft(_ real: inout [Double], _ imaginary: inout [Double]) {
        let count = real.count
        var swapIndex = 0
        for index in 1..<count {
            var bit = count >> 1
            while swapIndex & bit != 0 {
                swapIndex ^= bit
                bit >>= 1
            }
            swapIndex |= bit
            if index < swapIndex {
                real.swapAt(index, swapIndex)
                imaginary.swapAt(index, swapIndex)
            }
        }
        var length = 2
        while length <= count {
            let angle = -2 * Double.pi / Double(length)
            let stepReal = cos(angle)
            let stepImaginary = sin(angle)
            let half = length / 2
            for start in stride(from: 0, to: count, by: length) {
                var twiddleReal = 1.0
                var twiddleImaginary = 0.0
                for offset in 0..<half {
                    let a = start + offset
                    let b = a + half
                    let tReal = real[b] * twiddleReal - imaginary[b] * twiddleImaginary
                    let tImaginary = real[b] * twiddleImaginary + imaginary[b] * twiddleReal
                    real[b] = real[a] - tReal
                    imaginary[b] = imaginary[a] - tImaginary
                    real[a] += tReal
                    imaginary[a] += tImaginary
                    let nextReal = twiddleReal * stepReal - twiddleImaginary * stepImaginary
                    twiddleImaginary = twiddleReal * stepImaginary + twiddleImaginary * stepReal
                    twiddleReal = nextReal
                }
            }
            length <<= 1
        }
    }
}
