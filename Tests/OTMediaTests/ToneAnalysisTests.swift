import Foundation
import Testing
@testable import OTMedia

@Suite struct ToneAnalysisTests {
    static func sine(_ frequency: Double, amplitude: Double, count: Int, channels: Int = 1, channel: Int = 0,
                     into samples: inout [Int16]) {
        for index in 0..<count {
            samples[index * channels + channel] = Int16((amplitude * sin(2 * Double.pi * frequency * Double(index) / 48_000)).rounded())
        }
    }

    @Test(arguments: [50.0, 441.3, 2_000.0, 7_777.7, 19_000.0])
    func findsTheFrequencyOfACleanTone(frequency: Double) throws {
        var samples = [Int16](repeating: 0, count: 24_000)
        Self.sine(frequency, amplitude: 10_000, count: 24_000, into: &samples)
        let measured = try #require(AudioAnalysis.dominantFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(measured - frequency) <= 2, "measured \(measured) for \(frequency)")
    }

    @Test func picksTheStrongerToneAndTheRequestedChannel() throws {
        var samples = [Int16](repeating: 0, count: 2 * 24_000)
        var left = [Int16](repeating: 0, count: 24_000)
        var right = [Int16](repeating: 0, count: 24_000)
        Self.sine(440, amplitude: 8_000, count: 24_000, into: &left)
        Self.sine(1_000, amplitude: 8_000, count: 24_000, into: &right)
        var quiet = [Int16](repeating: 0, count: 24_000)
        Self.sine(3_000, amplitude: 1_000, count: 24_000, into: &quiet)
        for index in 0..<24_000 {
            samples[2 * index] = left[index] &+ quiet[index]
            samples[2 * index + 1] = right[index]
        }
        let l = try #require(AudioAnalysis.dominantFrequency(samples: samples, sampleRate: 48_000, channels: 2, channel: 0))
        let r = try #require(AudioAnalysis.dominantFrequency(samples: samples, sampleRate: 48_000, channels: 2, channel: 1))
        #expect(abs(l - 440) <= 2)
        #expect(abs(r - 1_000) <= 2)
    }

    @Test func toneAfterSilenceIsStillFound() throws {
        // Like a capture that starts before the player: 0.5 s of silence, then 0.5 s of tone.
        var samples = [Int16](repeating: 0, count: 48_000)
        var tone = [Int16](repeating: 0, count: 24_000)
        Self.sine(440, amplitude: 5_000, count: 24_000, into: &tone)
        samples.replaceSubrange(24_000..<48_000, with: tone)
        let measured = try #require(AudioAnalysis.dominantFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(measured - 440) <= 2)
    }

    @Test func silenceHasNoFrequencyAndZeroLevel() {
        let silence = [Int16](repeating: 0, count: 4_800)
        #expect(AudioAnalysis.dominantFrequency(samples: silence, sampleRate: 48_000) == nil)
        #expect(AudioAnalysis.rms(silence) == 0)
        #expect(AudioAnalysis.rms([]) == 0)
    }

    @Test func rmsOfKnownSignals() {
        let square = (0..<1_000).map { $0 % 2 == 0 ? Int16(1_000) : Int16(-1_000) }
        #expect(AudioAnalysis.rms(square) == 1_000)
        var sine = [Int16](repeating: 0, count: 48_000)
        Self.sine(1_000, amplitude: 32_767, count: 48_000, into: &sine)
        #expect(abs(AudioAnalysis.rms(sine) - 32_767 / 2.0.squareRoot()) < 2)
    }
}
