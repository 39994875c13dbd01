import Foundation
import OTMedia
import OTSignaling
import OTTestSupport
import Testing

/// Issue 6's acceptance, as separate processes: `otkit router`, `otkit token`,
/// `otkit publish --test-pattern --tone` and `otkit subscribe --out DIR`. The files are
/// read back: the Y4M's frames carry the test pattern's frame numbers, increasing, with
/// at least 95 % of the range present; the stream's WAV holds the 440 Hz tone. Then SIGTERM ends
/// the publisher with exit code 0 and the router has no stream left at once (REST), its
/// log saying the stream was unpublished (not dropped after a timeout).
@Suite(.serialized)
struct CommandEndToEndTests {
    static let project = ProjectCredentials(apiKey: "6606", apiSecret: "6606aa11bb22cc33dd44ee55ff6677889900aabb")
    var environment: [String: String] { ["OTKIT_API_KEY": Self.project.apiKey, "OTKIT_API_SECRET": Self.project.apiSecret] }

    @Test func routerPublishSubscribeWriteFilesThenSIGTERMUnpublishesAtOnce() throws {
        let dir = try temporaryDirectory("e2e")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let router = try BackgroundProcess(["router", "--port", "0", "--media-port", "0"], environment: environment, directory: dir)
        defer { router.terminate(); _ = router.waitForExit(10) }
        var url = ""
        let found = poll(15) {
            url = listeningURL(router.stdout)
            return !url.isEmpty
        }
        #expect(found, "router output: \(router.stdout) \(router.stderr)")

        let token = try Subprocess_run(["token", "--router", url, "--role", "publisher", "--data", "camera 1"], environment: environment)
        #expect(token.status == 0, "\(token)")
        let lines: [String: String] = keyValues(token.stdout)
        let sessionId = try #require(lines["OTKIT_SESSION"])
        let publisherToken = try #require(lines["OTKIT_TOKEN"])

        let publisher = try BackgroundProcess(["publish", "--router", url, "--session", sessionId, "--token", publisherToken,
                                               "--test-pattern", "--tone", "--resolution", "320x240", "--fps", "30"],
                                              directory: dir)
        let rest = REST(baseURL: url, project: Self.project)
        var streams: [String] = []
        let published = poll(20) {
            streams = (try? rest.streamIds(sessionId)) ?? []
            return streams.count == 1
        }
        #expect(published, "publisher: \(publisher.stdout) \(publisher.stderr)")
        let streamId = try #require(streams.first)

        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let subscriber = try Subprocess_run(["subscribe", "--router", url, "--session", sessionId, "--out", out, "--seconds", "6",
                                             "--log-format", "json"], environment: environment, timeout: 60)
        #expect(subscriber.status == 0, "\(subscriber)")
        #expect(subscriber.stdout.contains("\"event\":\"summary\""), "\(subscriber.stdout.suffix(1500))")

        // The video: frame numbers increasing, ≥ 95 % of the span present.
        let numbers = try stampedNumbers(inY4M: "\(out)/\(streamId).y4m")
        let read: [UInt32] = numbers.compactMap { $0 }
        #expect(numbers.count >= 100, "6 s at 30 fps gives well over 100 frames; got \(numbers.count)")
        #expect(read.count * 100 >= numbers.count * 95, "stamps read in \(read.count) of \(numbers.count) frames")
        #expect(isIncreasing(read), "frame numbers increase")
        if let first = read.first, let last = read.last, last > first {
            let span: Int = Int(last - first) + 1
            let present: Int = Set(read).count
            #expect(present * 100 >= span * 95, "\(present) of \(span) frame numbers present")
        }

        // The audio: the 440 Hz tone, loud, in the recording's second half (after startup).
        let (samples, rate) = try wavSamples("\(out)/\(streamId).wav")
        #expect(rate == 48_000)
        #expect(samples.count >= 48_000 * 4, "about 6 s of audio, got \(samples.count) samples")
        let tail = Array(samples.suffix(samples.count / 2))
        let rms: Double = AudioAnalysis.rms(tail)
        #expect(rms > 1000, "the tone is loud: rms \(rms)")
        let frequency: Double = AudioAnalysis.dominantFrequency(samples: tail, sampleRate: rate) ?? 0
        let error: Double = abs(frequency - 440)
        #expect(error < 2, "dominant frequency \(frequency) Hz")

        // SIGTERM: exit 0, and the router has already destroyed the stream when the process is gone.
        publisher.terminate()
        #expect(publisher.waitForExit(15) == 0, "publisher: \(publisher.stdout.suffix(1500)) \(publisher.stderr)")
        #expect(try rest.streamIds(sessionId).isEmpty, "no stream left the moment the publisher exited")
        #expect(router.stderr.contains("\"reason\":\"unpublished\""), "the router logged an unpublish, not a timeout")
        #expect(publisher.stdout.contains("\"event\":\"stopped\""))
    }
}

/// The URL after "otkit router listening at " in the router's output, "" until it is there.
func listeningURL(_ output: String) -> String {
    let prefix = "otkit router listening at "
    for line in output.split(separator: "\n") where line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
    return ""
}

/// `KEY=value` lines as a dictionary.
func keyValues(_ text: String) -> [String: String] {
    var result: [String: String] = [:]
    for line in text.split(separator: "\n") {
        guard let eq = line.firstIndex(of: "=") else { continue }
        result[String(line[..<eq])] = String(line[line.index(after: eq)...])
    }
    return result
}

/// Whether every number is larger than the one before.
func isIncreasing(_ numbers: [UInt32]) -> Bool {
    for index in numbers.indices.dropFirst() where numbers[index] <= numbers[index - 1] { return false }
    return true
}

/// `Subprocess.run` on the built `otkit`.
func Subprocess_run(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 30) throws -> Subprocess.Result {
    try Subprocess.run(OtkitBinary.path, arguments, environment: environment, timeoutSeconds: timeout)
}
