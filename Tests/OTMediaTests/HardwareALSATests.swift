import Foundation
import Synchronization
import Testing
@testable import OTMedia

/// Real ALSA kernel drivers: the snd-aloop card "Loopback" in the test VM
/// (`OTKIT_HARDWARE_TESTS=1`). What is played to `hw:Loopback,0,N` is captured from
/// `hw:Loopback,1,N`; these tests check the tone's frequency and level on the way through.
@Suite(.enabled(if: HardwareTests.enabled), .serialized)
struct HardwareALSATests {
    /// What the playback thread reports back.
    final class PlaybackOutcome: Sendable {
        let error = Mutex<MediaError?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let parameters = Mutex<ALSAStreamParameters?>(nil)
        let underruns = Mutex<UInt64>(0)
    }

    /// Plays `frames` frames of a 440 Hz tone to `speaker` on its own thread; the writes
    /// block at the device's pace, so the thread lasts about as long as the audio.
    static func play(_ speaker: ALSASpeaker, tone: ToneSource, frames: Int) -> PlaybackOutcome {
        let outcome = PlaybackOutcome()
        let thread = Thread {
            defer { outcome.finished.signal() }
            do throws(MediaError) {
                try speaker.start()
                outcome.parameters.withLock { $0 = speaker.parameters }
                try tone.start()
                for _ in 0..<frames {
                    guard let frame = try tone.nextFrame(timeoutMilliseconds: 1_000) else { continue }
                    try speaker.write(frame)
                }
                outcome.underruns.withLock { $0 = speaker.statistics.underruns }
                speaker.stop()
            } catch {
                outcome.error.withLock { $0 = error }
                speaker.stop()
            }
        }
        thread.name = "otkit-test-playback"
        thread.start()
        return outcome
    }

    @Test(arguments: [AudioFormat.mono20ms, .stereo20ms])
    func loopbackCarriesTheTone(format: AudioFormat) throws {
        let subdevice = format.channels == 1 ? 0 : 1
        // Same buffer geometry on both ends: aloop ties the two when it runs off a sound timer.
        let speaker = try ALSASpeaker(device: "hw:Loopback,0,\(subdevice)", format: format, periods: 8)
        let microphone = try ALSAMicrophone(device: "hw:Loopback,1,\(subdevice)", format: format, periods: 8)
        let tone = try ToneSource(frequency: 440, amplitude: 0.5, format: format, paced: false)

        // 2 s of tone; capture 1 s while it plays.
        let outcome = Self.play(speaker, tone: tone, frames: 100)
        try microphone.start()
        defer { microphone.stop() }
        var captured = [Int16]()
        for _ in 0..<50 {
            let frame = try #require(try microphone.nextFrame(timeoutMilliseconds: 2_000))
            captured.append(contentsOf: frame.buffer)
        }
        microphone.stop()
        #expect(outcome.finished.wait(timeout: .now() + 10) == .success, "playback thread did not finish")
        if let error = outcome.error.withLock({ $0 }) { Issue.record("playback failed: \(error)") }

        // Both ends run the engine format.
        let playback = try #require(outcome.parameters.withLock { $0 })
        #expect(playback.sampleRate == 48_000 && playback.channels == format.channels)
        #expect(captured.count == 48_000 * format.channels)

        // The last half second is all tone (the first frames may be silence from
        // before the player started).
        let tail = Array(captured[(captured.count / 2)...])
        for channel in 0..<format.channels {
            let frequency = try #require(AudioAnalysis.dominantFrequency(samples: tail, sampleRate: 48_000,
                                                                         channels: format.channels, channel: channel))
            #expect(abs(frequency - 440) <= 5, "captured \(frequency) Hz on channel \(channel)")
        }
        let expectedRMS = 0.5 * 32_767 / 2.0.squareRoot()
        let rms = AudioAnalysis.rms(tail)
        #expect(abs(rms - expectedRMS) / expectedRMS < 0.1, "captured RMS \(rms), played \(expectedRMS)")
    }

    @Test func captureWithoutAPlayerIsSilence() throws {
        let microphone = try ALSAMicrophone(device: "hw:Loopback,1,7", format: .mono10ms)
        try microphone.start()
        defer { microphone.stop() }
        let parameters = try #require(microphone.parameters)
        #expect(parameters.sampleRate == 48_000 && parameters.periodFrames == 480)
        var captured = [Int16]()
        var stamps = [UInt64]()
        for _ in 0..<20 {
            let frame = try #require(try microphone.nextFrame(timeoutMilliseconds: 2_000))
            captured.append(contentsOf: frame.buffer)
            stamps.append(frame.timestampNanoseconds)
        }
        #expect(AudioAnalysis.rms(captured) == 0)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 <= $1 }, "timestamps go backwards: \(stamps)")
        #expect(microphone.statistics.framesDelivered == 20)
    }
}
