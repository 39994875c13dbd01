import Glibc
import OTMedia

/// A deterministic, speech-like 48 kHz signal rendered into AudioFrames before timing.
///
/// A sine or a steady chord is far cheaper to encode than speech, and Opus's
/// classifier would code it as music (CELT), so this is a small source-filter formant
/// synthesizer instead: a glottal pulse train with jitter, shimmer and breath noise,
/// through four resonators whose formants glide between vowel targets, cut into
/// consonant-vowel syllables (fricatives, stops, nasals) and phrases with falling pitch
/// and pauses, two talkers taking turns (~110 Hz and ~200 Hz). Stereo puts the same
/// voice on the right 12 ms later at -3 dB (a room), like the reference clip.
/// Cost: one AudioFrame per 20 ms frame, rendered once.
enum SpeechSignal {
    /// `count` frames of `format`, stamped from t = 0; `level` receives the peak and
    /// RMS of the signal in dBFS (for the progress log).
    static func render(format: AudioFormat, count: Int, level: ((peak: Double, rms: Double)) -> Void = { _ in }) -> [AudioFrame] {
        let delay = format.channels == 2 ? 576 : 0    // 12 ms at 48 kHz
        var synthesizer = FormantSynthesizer(seed: 0x5EEC_0001)
        var mono = [Float](repeating: 0, count: count * format.samplesPerChannel + delay)
        var peak: Float = 0, energy: Double = 0
        for index in mono.indices {
            let sample = synthesizer.next()
            mono[index] = sample
            peak = max(peak, abs(sample))
            energy += Double(sample * sample)
        }
        level((20 * log10(Double(peak)), 10 * log10(energy / Double(max(1, mono.count)))))
        var frames: [AudioFrame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            let frame = AudioFrame(format: format)
            frame.timestampNanoseconds = UInt64(index) * UInt64(format.frameMilliseconds) * 1_000_000
            frame.sequence = UInt64(index)
            let start = index * format.samplesPerChannel + delay
            let samples = frame.samples
            for i in 0..<format.samplesPerChannel {
                if format.channels == 1 {
                    samples[i] = pcm(mono[start + i])
                } else {
                    samples[2 * i] = pcm(mono[start + i])
                    samples[2 * i + 1] = pcm(mono[start + i - delay] * 0.708)
                }
            }
            frames.append(frame)
        }
        return frames
    }

    private static func pcm(_ value: Float) -> Int16 {
        Int16(max(-32767, min(32767, value * 32767)))
    }
}

/// The synthesizer behind `SpeechSignal`, one sample at a time.
private struct FormantSynthesizer {
    private static let rate: Float = 48_000

    private enum Segment { case pause, vowel, fricative, stop, nasal }

    private var random: NoiseGenerator
    // Schedule.
    private var segment = Segment.pause
    private var segmentLength = 4800
    private var segmentPosition = 0
    private var phraseRemaining = 0
    private var phraseLength = 1
    private var talker = 0
    // Targets (smoothed towards per sample).
    private var targetFormants: [Float] = [500, 1500, 2500, 3500]
    private var formants: [Float] = [500, 1500, 2500, 3500]
    private var bandwidths: [Float] = [80, 100, 140, 200]
    // Source.
    private var periodPosition: Float = 0
    private var period: Float = 400
    private var pulseGain: Float = 1
    private var previousSource: Float = 0
    // Resonators: two past outputs each; plus the fricative resonator.
    private var y1: [Float] = [0, 0, 0, 0]
    private var y2: [Float] = [0, 0, 0, 0]
    private var noiseY1: Float = 0, noiseY2: Float = 0
    private var noiseCenter: Float = 4000
    private var room: Float = 0
    private var coefficients: [(a: Float, b: Float, c: Float)] = Array(repeating: (1, 0, 0), count: 4)
    private var sampleCount = 0

    // Vowel formant targets F1-F3 (Hz): /a/ /i/ /e/ /o/ /u/ /æ/ /ə/.
    private static let vowels: [(Float, Float, Float)] = [
        (730, 1090, 2440), (270, 2290, 3010), (530, 1840, 2480), (570, 840, 2410),
        (300, 870, 2240), (660, 1720, 2410), (500, 1500, 2500),
    ]

    init(seed: UInt32) {
        random = NoiseGenerator(seed: seed)
        startPhrase()
    }

    private mutating func uniform(_ low: Float, _ high: Float) -> Float {
        low + (high - low) * Float(random.next() % 10_000) / 10_000
    }

    private mutating func startPhrase() {
        talker = 1 - talker
        phraseLength = Int(uniform(1.2, 3.0) * Self.rate)
        phraseRemaining = phraseLength
    }

    /// Picks the segment after the current one.
    private mutating func nextSegment() {
        segmentPosition = 0
        if phraseRemaining <= 0 {
            if segment == .pause { startPhrase() } else {
                segment = .pause
                segmentLength = Int(uniform(0.25, 0.6) * Self.rate)
                return
            }
        }
        if segment == .vowel, random.next() % 4 != 0 {
            switch random.next() % 3 {
            case 0:
                segment = .fricative
                segmentLength = Int(uniform(0.05, 0.11) * Self.rate)
                noiseCenter = uniform(2500, 6500)
            case 1:
                segment = .stop
                segmentLength = Int(uniform(0.04, 0.07) * Self.rate)
            default:
                segment = .nasal
                segmentLength = Int(uniform(0.04, 0.08) * Self.rate)
                targetFormants[0] = 250; targetFormants[1] = 1100; targetFormants[2] = 2300
            }
        } else {
            segment = .vowel
            segmentLength = Int(uniform(0.09, 0.22) * Self.rate)
            let vowel = Self.vowels[Int(random.next() % UInt32(Self.vowels.count))]
            let scale: Float = talker == 0 ? 1.0 : 1.17    // shorter vocal tract, higher formants
            targetFormants[0] = vowel.0 * scale
            targetFormants[1] = vowel.1 * scale
            targetFormants[2] = vowel.2 * scale
        }
    }

    /// The next sample, about -1...1.
    mutating func next() -> Float {
        if segmentPosition >= segmentLength { nextSegment() }
        let progress = Float(segmentPosition) / Float(segmentLength)
        segmentPosition += 1
        phraseRemaining -= 1
        sampleCount += 1

        // Envelopes of the three sources for this segment.
        var voicing: Float = 0, frication: Float = 0
        switch segment {
        case .pause: break
        case .vowel: voicing = min(1, min(progress * 8, (1 - progress) * 5))
        case .nasal: voicing = 0.35
        case .fricative: frication = sin(.pi * progress) * 0.5; voicing = progress < 0.3 ? 0.1 : 0
        case .stop: frication = progress > 0.7 ? (1 - progress) * 2.5 : 0    // closure, then a burst
        }

        // Formants glide towards their targets (about 15 ms time constant) and the
        // resonator coefficients follow every 48 samples.
        if sampleCount % 48 == 0 {
            for k in 0..<3 { formants[k] += (targetFormants[k] - formants[k]) * 0.27 }
            for k in 0..<4 { coefficients[k] = Self.resonator(formants[k], bandwidths[k]) }
        }

        // Glottal source: Rosenberg pulses, jittered period, shimmered gain, breath noise.
        periodPosition += 1
        if periodPosition >= period {
            periodPosition -= period
            let phrase = 1 - Float(phraseRemaining) / Float(phraseLength)
            let base: Float = talker == 0 ? 110 : 200
            let pitch = base * (1.18 - 0.3 * max(0, min(1, phrase)) + 0.06 * sin(Float(sampleCount) / 4_000))
            period = Self.rate / pitch * uniform(0.985, 1.015)
            pulseGain = uniform(0.9, 1.1)
        }
        let open = period * 0.4, closing = period * 0.16
        var glottal: Float = 0
        if periodPosition < open {
            glottal = 0.5 * (1 - cos(.pi * periodPosition / open))
        } else if periodPosition < open + closing {
            glottal = cos(.pi / 2 * (periodPosition - open) / closing)
        }
        let white = Float(random.nextUnit())
        var source = voicing * pulseGain * (glottal + 0.08 * white * glottal)
        // Radiation at the lips: a first difference.
        let radiated = source - previousSource
        previousSource = source
        source = radiated * 6

        // Cascade of four formant resonators.
        var x = source
        for k in 0..<4 {
            let (a, b, c) = coefficients[k]
            let y = a * x + b * y1[k] + c * y2[k]
            y2[k] = y1[k]
            y1[k] = y
            x = y
        }
        // Frication: noise through one broad resonator.
        let (a, b, c) = Self.resonator(noiseCenter, 1500)
        let hiss = a * white + b * noiseY1 + c * noiseY2
        noiseY2 = noiseY1
        noiseY1 = hiss
        // Room noise: white noise low-passed (one pole at ~500 Hz), about -60 dBFS.
        room += (white - room) * 0.065
        return 0.35 * x + 0.25 * frication * hiss + 0.004 * room
    }

    /// A two-pole resonator at `frequency` with `bandwidth` (Hz), unity gain at DC
    /// (Klatt's form): y[n] = a x[n] + b y[n-1] + c y[n-2].
    private static func resonator(_ frequency: Float, _ bandwidth: Float) -> (a: Float, b: Float, c: Float) {
        let c = -exp(-2 * .pi * bandwidth / rate)
        let b = 2 * exp(-.pi * bandwidth / rate) * cos(2 * .pi * frequency / rate)
        return (1 - b - c, b, c)
    }
}
