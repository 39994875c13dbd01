import Foundation
import Glibc
import Testing
@testable import OTMedia

/// A machine with no sound card (this one, CI): opening ALSA devices fails with
/// `audioUnavailable` and a readable message, without aborting and without alsa-lib
/// writing to stderr.
@Suite struct ALSAUnavailableTests {
    static func failure(_ body: () throws -> Void) -> MediaError? { ToneTestSupport.failure(body) }

    static var hasNoCard: Bool { !FileManager.default.fileExists(atPath: "/dev/snd/controlC7") }

    @Test(.enabled(if: hasNoCard)) func microphoneOnAMissingCardIsUnavailable() throws {
        let microphone = try ALSAMicrophone(device: "hw:7,0")
        let error = try #require(Self.failure { try microphone.start() })
        #expect(error.code == .audioUnavailable)
        #expect(error.message.contains("no audio capture device 'hw:7,0'"), "\(error.message)")
        #expect(error.message.contains("ALSA: "), "\(error.message)")
        #expect(error.message.contains("publishing without audio"), "\(error.message)")
        #expect(microphone.parameters == nil)
        // Still unusable, still not fatal.
        #expect(Self.failure { _ = try microphone.nextFrame(timeoutMilliseconds: 0) }?.code == .invalidArgument)
        microphone.stop()
    }

    @Test(.enabled(if: hasNoCard)) func speakerOnAMissingCardIsUnavailable() throws {
        let speaker = try ALSASpeaker(device: "hw:7,0", format: .stereo20ms)
        let error = try #require(Self.failure { try speaker.start() })
        #expect(error.code == .audioUnavailable)
        #expect(error.message.contains("no audio playback device 'hw:7,0'"), "\(error.message)")
        #expect(error.message.contains("playing without audio"), "\(error.message)")
        #expect(Self.failure { try speaker.write(AudioFrame(format: .stereo20ms)) }?.code == .invalidArgument)
        speaker.stop()
    }

    @Test func anUnknownPCMNameIsUnavailable() throws {
        let microphone = try ALSAMicrophone(device: "otkit_no_such_pcm")
        let error = try #require(Self.failure { try microphone.start() })
        #expect(error.code == .audioUnavailable)
        #expect(error.message.contains("otkit_no_such_pcm"))
    }

    @Test func alsaLibDoesNotWriteToStderr() throws {
        // Point fd 2 at a file while alsa-lib fails, then put it back.
        let path = ToneTestSupport.temporaryPath("stderr.txt")
        defer { ToneTestSupport.removeDirectory(of: path) }
        let capture = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(capture >= 0)
        let saved = dup(2)
        try #require(saved >= 0)
        fflush(nil)
        dup2(capture, 2)
        let microphone = try ALSAMicrophone(device: "hw:7,0")
        let first = Self.failure { try microphone.start() }
        let speaker = try ALSASpeaker(device: "otkit_no_such_pcm")
        let second = Self.failure { try speaker.start() }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(capture)
        #expect(first != nil && second != nil)
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        #expect(!text.contains("ALSA lib"), "alsa-lib printed: \(text)")
    }

    @Test func formatsAndPeriodsOutsideTheEngineAreRefused() {
        #expect(Self.failure { _ = try ALSAMicrophone(format: AudioFormat(sampleRate: 44_100)) }?.code == .invalidArgument)
        #expect(Self.failure { _ = try ALSAMicrophone(format: AudioFormat(channels: 3)) }?.code == .invalidArgument)
        #expect(Self.failure { _ = try ALSAMicrophone(periods: 1) }?.code == .invalidArgument)
        #expect(Self.failure { _ = try ALSASpeaker(format: AudioFormat(frameMilliseconds: 5)) }?.code == .invalidArgument)
    }
}
