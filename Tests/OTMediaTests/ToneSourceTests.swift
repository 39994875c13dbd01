import Foundation
import Testing
@testable import OTMedia

@Suite struct ToneSourceTests {
    @Test(arguments: [100.0, 440.0, 1_000.0, 3_150.5, 12_000.0])
    func frequencyAndLevelMatch(frequency: Double) throws {
        let tone = try ToneSource(frequency: frequency, amplitude: 0.5, format: .mono20ms, paced: false)
        try tone.start()
        let samples = try ToneTestSupport.collect(tone, frames: 25)  // 0.5 s
        #expect(samples.count == 24_000)
        let measured = try #require(AudioAnalysis.dominantFrequency(samples: samples, sampleRate: 48_000))
        #expect(abs(measured - frequency) <= 2, "measured \(measured) Hz for a \(frequency) Hz tone")
        let expectedRMS = 0.5 * 32767 / 2.0.squareRoot()
        let rms = AudioAnalysis.rms(samples)
        #expect(abs(rms - expectedRMS) / expectedRMS < 0.005, "RMS \(rms), expected \(expectedRMS)")
        #expect(samples.max()! <= 16_384 && samples.min()! >= -16_384)
    }

    @Test func framesAreContinuousAcrossBoundaries() throws {
        let tone = try ToneSource(frequency: 997, amplitude: 0.8, format: .mono10ms, paced: false)
        try tone.start()
        let samples = try ToneTestSupport.collect(tone, frames: 40)
        // The concatenated frames are one unbroken sine: each sample equals the
        // closed form for its index (within rounding of the running phase).
        var worst = 0
        for (index, sample) in samples.enumerated() {
            let exact = 0.8 * 32767 * sin(2 * Double.pi * 997 * Double(index) / 48_000)
            worst = max(worst, abs(Int(sample) - Int(exact.rounded())))
        }
        #expect(worst <= 1, "largest deviation from the continuous sine: \(worst)")
        // And no step at a frame boundary is larger than the sine's steepest slope.
        let maxStep = 0.8 * 32767 * 2 * Double.pi * 997 / 48_000 + 2
        for boundary in stride(from: 480, to: samples.count, by: 480) {
            let step = abs(Int(samples[boundary]) - Int(samples[boundary - 1]))
            #expect(Double(step) <= maxStep, "jump of \(step) at sample \(boundary)")
        }
    }

    @Test func stereoChannelsAreEqual() throws {
        let tone = try ToneSource(frequency: 440, amplitude: 0.25, format: .stereo20ms, paced: false)
        try tone.start()
        let frame = try #require(try tone.nextFrame(timeoutMilliseconds: 0))
        #expect(frame.format.channels == 2)
        #expect(frame.buffer.count == 1_920)
        var nonzero = 0
        for index in 0..<960 {
            #expect(frame.buffer[2 * index] == frame.buffer[2 * index + 1])
            if frame.buffer[2 * index] != 0 { nonzero += 1 }
        }
        #expect(nonzero > 900)
    }

    @Test func sequenceAndTimestampsFollowTheFrameClock() throws {
        let tone = try ToneSource(format: .mono20ms, paced: false)
        try tone.start()
        var stamps = [UInt64]()
        for expected in 0..<5 {
            let frame = try #require(try tone.nextFrame(timeoutMilliseconds: 0))
            #expect(frame.sequence == UInt64(expected))
            stamps.append(frame.timestampNanoseconds)
        }
        for index in 1..<stamps.count {
            #expect(stamps[index] - stamps[index - 1] == 20_000_000)
        }
        #expect(tone.statistics.framesDelivered == 5)
    }

    @Test func restartBeginsAtPhaseZero() throws {
        let tone = try ToneSource(frequency: 1_234, format: .mono10ms, paced: false)
        try tone.start()
        let first = try ToneTestSupport.collect(tone, frames: 3)
        tone.stop()
        try tone.start()
        let again = try ToneTestSupport.collect(tone, frames: 3)
        #expect(first == again)
    }

    @Test func exhaustedPoolDropsAndCounts() throws {
        let tone = try ToneSource(format: .mono10ms, paced: false)
        try tone.start()
        var held = [AudioFrame]()
        for _ in 0..<8 { held.append(try #require(try tone.nextFrame(timeoutMilliseconds: 0))) }
        #expect(try tone.nextFrame(timeoutMilliseconds: 0) == nil)
        #expect(tone.statistics.framesDropped == 1)
        held.removeAll()
        let next = try #require(try tone.nextFrame(timeoutMilliseconds: 0))
        #expect(next.sequence == 9, "the dropped frame's slot on the clock is skipped")
    }

    @Test func refusesBadArgumentsAndUseBeforeStart() throws {
        #expect(throws: MediaError.self) { try ToneSource(frequency: 30_000) }
        #expect(throws: MediaError.self) { try ToneSource(amplitude: 1.5) }
        #expect(throws: MediaError.self) { try ToneSource(format: AudioFormat(sampleRate: 44_100)) }
        let tone = try ToneSource(paced: false)
        do {
            _ = try tone.nextFrame(timeoutMilliseconds: 0)
            Issue.record("nextFrame before start must throw")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }
}
