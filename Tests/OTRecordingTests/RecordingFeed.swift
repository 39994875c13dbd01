import Foundation
import OTMedia
import OTRecording
import OTTestSupport

/// Plays a `SyntheticAVPublisher` into a `StreamRecorder` as a router would: packets in
/// media-time order with per-track network delays, seeded loss and reordering (a held
/// packet is delivered after the next one of its track), sender reports at 0 s and every
/// second, and a keyframe forced whenever the recorder asks for one (the router's PLI).
/// Arrival times are simulated (media time + delay), so the run is faster than real time
/// and repeatable; after each video frame it waits until the writer has taken every queued
/// entry, so a keyframe request is answered on the next frame.
struct RecordingFeed {
    var lossRate = 0.0
    var reorderRate = 0.0
    var seed: UInt64 = 1
    var videoDelayNanoseconds: UInt64 = 100_000_000
    var audioDelayNanoseconds: UInt64 = 0
    /// Video frames encoded but not delivered at the start (the recorder then sees delta frames first).
    var withheldFrames = 0

    /// What happened during a run.
    struct Log {
        var framesEncoded = 0
        var keyframesForced: [UInt32] = []
        var firstDeliveredFrame: UInt32 = 0
        var packetsLost = 0
        var packetsReordered = 0
    }

    func run(_ publisher: SyntheticAVPublisher, into recorder: StreamRecorder, seconds: Double) throws -> Log {
        var log = Log()
        var random = SplitMix64(seed: seed)
        var held: [RecordingTrack: ([UInt8], UInt64)] = [:]
        var expected = 0
        let start = MonotonicClock.nanoseconds()
        let totalFrames = Int(seconds * Double(publisher.frameRate))
        let totalAudio = Int(seconds * 50)
        var forceKeyframe = false
        var nextReport: UInt64 = 0
        log.firstDeliveredFrame = UInt32(withheldFrames)

        func deliver(_ track: RecordingTrack, _ bytes: UnsafeRawBufferPointer, _ arrival: UInt64) {
            let draw = random.unit()
            if draw < lossRate {
                log.packetsLost += 1
                return
            }
            if draw < lossRate + reorderRate, held[track] == nil {
                held[track] = (Array(bytes), arrival)
                log.packetsReordered += 1
                return
            }
            if recorder.enqueue(track, rtp: bytes, arrivalNanoseconds: arrival) { expected += 1 }
            if let (late, lateArrival) = held.removeValue(forKey: track) {
                late.withUnsafeBytes { if recorder.enqueue(track, rtp: $0, arrivalNanoseconds: max(lateArrival, arrival)) { expected += 1 } }
            }
        }

        while publisher.frameNumber < totalFrames || publisher.audioIndex < totalAudio {
            let videoTime = publisher.videoTime(publisher.frameNumber)
            let audioTime = publisher.audioTime(publisher.audioIndex)
            let nextTime = min(publisher.frameNumber < totalFrames ? videoTime : .max,
                               publisher.audioIndex < totalAudio ? audioTime : .max)
            if nextTime >= nextReport {
                for video in [true, false] {
                    let report = publisher.senderReport(video: video, atMediaTime: nextReport)
                    let delay = video ? videoDelayNanoseconds : audioDelayNanoseconds
                    if recorder.enqueueSenderReport(video ? .video : .audio, ntpTimestamp: report.ntp, rtpTimestamp: report.rtp,
                                                    arrivalNanoseconds: start + nextReport + delay) { expected += 1 }
                }
                nextReport += 1_000_000_000
            }
            if publisher.frameNumber < totalFrames, videoTime <= audioTime || publisher.audioIndex >= totalAudio {
                let withheld = Int(publisher.frameNumber) < withheldFrames
                let arrival = start + videoTime + videoDelayNanoseconds
                let frame = try publisher.nextVideoFrame(forceKeyframe: forceKeyframe && !withheld) { packet in
                    if !withheld { deliver(.video, packet, arrival) }
                }
                log.framesEncoded += 1
                if forceKeyframe && !withheld { log.keyframesForced.append(frame.number) }
                waitUntilProcessed(recorder, expected)
                // Withheld frames are the part of the stream before the recorder joined: it
                // can ask only once it has seen something.
                forceKeyframe = withheld ? false : recorder.needsKeyframe
            } else {
                let arrival = start + audioTime + audioDelayNanoseconds
                try publisher.nextAudioFrame { deliver(.audio, $0, arrival) }
            }
        }
        for (track, (late, arrival)) in held {
            late.withUnsafeBytes { if recorder.enqueue(track, rtp: $0, arrivalNanoseconds: arrival) { expected += 1 } }
        }
        return log
    }

    /// Polls until the writer has handled `count` entries (or 10 s pass: a test then fails on content).
    func waitUntilProcessed(_ recorder: StreamRecorder, _ count: Int) {
        let deadline = MonotonicClock.nanoseconds() + 10_000_000_000
        while recorder.statistics.processed < count, MonotonicClock.nanoseconds() < deadline {
            usleep(200)
        }
    }
}
