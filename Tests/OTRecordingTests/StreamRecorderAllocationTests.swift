import Foundation
import OTMedia
import OTRecording
import OTTestSupport
import Testing

/// The producer side of a recorder (the router's forwarding thread) allocates nothing per packet.
@Suite("StreamRecorder allocations", .enabled(if: AllocationCounter.shouldRun))
struct StreamRecorderAllocationTests {
    /// 3,000 enqueues of real VP8/Opus packets plus sender reports, while the writer thread
    /// records them (accepted or refused by a full queue alike), count zero allocations on
    /// the calling thread.
    @Test func enqueueAllocatesNothing() throws {
        let allocations = try AllocationCounter.required()
        let dir = try scratchDirectory("alloc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/stream.webm"
        var configuration = StreamRecorderConfiguration(path: path)
        configuration.queueCapacity = 256
        let recorder = StreamRecorder(configuration: configuration)
        let publisher = try SyntheticAVPublisher()
        var packets: [(RecordingTrack, [UInt8])] = []
        for _ in 0..<30 {
            try publisher.nextVideoFrame { packets.append((.video, Array($0))) }
            try publisher.nextAudioFrame { packets.append((.audio, Array($0))) }
        }
        let report = publisher.senderReport(video: true, atMediaTime: 0)
        var accepted = 0
        let before = allocations()
        for round in 0..<3_000 {
            let (track, bytes) = packets[round % packets.count]
            let arrival = UInt64(round) * 1_000_000
            if bytes.withUnsafeBytes({ recorder.enqueue(track, rtp: $0, arrivalNanoseconds: arrival) }) { accepted += 1 }
            if round % 100 == 0 {
                _ = recorder.enqueueSenderReport(.video, ntpTimestamp: report.ntp, rtpTimestamp: report.rtp, arrivalNanoseconds: arrival)
            }
        }
        let after = allocations()
        #expect(after - before == 0, "\(after - before) allocations in 3,000 enqueues")
        #expect(accepted > 0)
        _ = recorder.finish()
    }
}
