import Foundation
import OTMedia
import OTRecording
import OTTestSupport
import Testing

/// A recorded stream read back by ffprobe/ffmpeg: codecs, duration, clean decoding,
/// frame numbers, and audio/video alignment through the sender reports.
@Suite("StreamRecorder media")
struct StreamRecorderMediaTests {
    /// 10 s of test pattern + beeps with 2 % reordering and 1 % loss, video arriving 100 ms
    /// after audio: VP8 + Opus, 10 s ± 0.3, decodes cleanly, ≥ 95 % of the frame numbers,
    /// and the beeps line up with the frames of the same media time within 80 ms (without
    /// the sender reports the 100 ms delay difference would show).
    @Test func impairedStreamRecordsPlayableAlignedWebM() throws {
        let dir = try scratchDirectory("impaired")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/stream.webm"
        let publisher = try SyntheticAVPublisher()
        let recorder = StreamRecorder(configuration: StreamRecorderConfiguration(path: path))
        let feed = RecordingFeed(lossRate: 0.01, reorderRate: 0.02, seed: 0x5EED_0018)
        let log = try feed.run(publisher, into: recorder, seconds: 10)
        let summary = recorder.finish()
        #expect(summary.state == .finished, "\(summary)")
        #expect(log.packetsLost > 0 && log.packetsReordered > 0, "the impairment must happen: \(log)")

        let probe = try MediaProbe.probe(path)
        #expect(MediaProbe.codecs(probe) == ["video": "vp8", "audio": "opus"])
        let duration = try #require(MediaProbe.duration(probe))
        #expect(abs(duration - 10) <= 0.3, "ffprobe duration \(duration)")
        #expect(abs(Double(summary.durationMilliseconds) / 1000 - 10) <= 0.3, "\(summary)")
        #expect(summary.size == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
        #expect(try MediaProbe.decodeErrors(path) == "")

        let numbers = try MediaProbe.frameNumbers(path, width: publisher.width, height: publisher.height, scratch: dir)
        let distinct = Set(numbers.compactMap { $0 })
        let sent = log.framesEncoded
        #expect(Double(distinct.count) >= 0.95 * Double(sent), "\(distinct.count) of \(sent) frames; \(summary.statistics)")

        // Alignment: video file time minus media time (from the frame numbers) against
        // audio onset file time minus the beep's media time.
        let packets = try MediaProbe.packets(path, stream: "v")
        #expect(packets.count == numbers.count)
        var videoOffsets: [Double] = []
        for (packet, number) in zip(packets, numbers) {
            if let number { videoOffsets.append(packet.time - Double(number) / Double(publisher.frameRate)) }
        }
        let onsets = MediaProbe.onsets(try MediaProbe.audioSamples(path, scratch: dir))
        let audioOffsets = onsets.map { $0 - $0.rounded() }
        #expect(onsets.count >= 8, "beep onsets \(onsets)")
        let video = try #require(MediaProbe.median(videoOffsets))
        let audio = try #require(MediaProbe.median(audioOffsets))
        #expect(abs(video - audio) < 0.080, "video offset \(video) s, audio offset \(audio) s")
    }

    /// A stream whose first delivered frames are delta frames: the recorder asks for a
    /// keyframe, skips what comes before it, and the file's first frame is that keyframe.
    @Test func fileStartsAtTheFirstKeyframe() throws {
        let dir = try scratchDirectory("keyframe")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/stream.webm"
        let publisher = try SyntheticAVPublisher()
        let recorder = StreamRecorder(configuration: StreamRecorderConfiguration(path: path))
        #expect(recorder.state == .waitingForKeyframe)
        let feed = RecordingFeed(seed: 2, withheldFrames: 5)
        let log = try feed.run(publisher, into: recorder, seconds: 3)
        let summary = recorder.finish()
        #expect(summary.state == .finished)
        let keyframe = try #require(log.keyframesForced.first, "needsKeyframe was never raised")
        #expect(summary.statistics.videoFramesSkipped >= 1)

        let packets = try MediaProbe.packets(path, stream: "v")
        #expect(packets.first?.keyframe == true)
        #expect(packets.first?.time == 0)
        let numbers = try MediaProbe.frameNumbers(path, width: publisher.width, height: publisher.height, scratch: dir)
        #expect(numbers.first == keyframe, "first decoded frame \(String(describing: numbers.first)), keyframe \(keyframe)")
        #expect(numbers.compactMap { $0 }.allSatisfy { $0 >= keyframe })
        #expect(try MediaProbe.decodeErrors(path) == "")
        // No audio before the first keyframe: the first audio packet is at file time 0 or
        // later (ffprobe shows Opus packets earlier by the 312-sample pre-skip, 6.5 ms).
        let audio = try MediaProbe.packets(path, stream: "a")
        #expect((audio.first?.time ?? -1) >= -0.0075, "first audio packet at \(String(describing: audio.first))")
    }
}
