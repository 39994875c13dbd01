// Test-only: records a synthetic stream (test pattern + beeps) in real time into the file
// given, so the recording tests can kill it (SIGKILL mid-recording) or limit it
// (RLIMIT_FSIZE, another user) as a separate process.
//   OTRecordingProbe <file.webm> <seconds>
// Prints "recording" once the first keyframe is queued, then "done <state>" at the end.
import Foundation
import Glibc
import OTMedia
import OTRecording
import OTTestSupport

signal(SIGXFSZ, SIG_IGN)  // a file-size limit then fails write(2) with EFBIG instead of killing us
// OTRECORDING_PROBE_UID: drop root to that uid/gid first, so permission bits apply (the
// unwritable-directory test where root cannot mount a read-only filesystem).
if let uid = ProcessInfo.processInfo.environment["OTRECORDING_PROBE_UID"].flatMap(UInt32.init) {
    guard setgid(uid) == 0, setuid(uid) == 0 else {
        FileHandle.standardError.write(Data("OTRecordingProbe: cannot drop to uid \(uid)\n".utf8))
        exit(3)
    }
}
let arguments = CommandLine.arguments
guard arguments.count >= 3, let seconds = Double(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: OTRecordingProbe <file.webm> <seconds>\n".utf8))
    exit(2)
}
let recorder = StreamRecorder(configuration: StreamRecorderConfiguration(path: arguments[1]))
let publisher = try SyntheticAVPublisher()
let start = MonotonicClock.nanoseconds()
let frames = UInt32(seconds * Double(publisher.frameRate))
var announced = false
var refused = 0
while publisher.frameNumber < frames {
    let videoTime = publisher.videoTime(publisher.frameNumber)
    let audioTime = publisher.audioTime(publisher.audioIndex)
    let next = min(videoTime, audioTime)
    MonotonicClock.sleep(until: start + next)
    if next % 1_000_000_000 < 20_000_000 {
        for video in [true, false] {
            let report = publisher.senderReport(video: video, atMediaTime: next)
            recorder.enqueueSenderReport(video ? .video : .audio, ntpTimestamp: report.ntp, rtpTimestamp: report.rtp)
        }
    }
    if videoTime <= audioTime {
        try publisher.nextVideoFrame(forceKeyframe: recorder.needsKeyframe) { if !recorder.enqueue(.video, rtp: $0) { refused += 1 } }
        if !announced {
            announced = true
            FileHandle.standardOutput.write(Data("recording\n".utf8))
        }
    } else {
        try publisher.nextAudioFrame { if !recorder.enqueue(.audio, rtp: $0) { refused += 1 } }
    }
}
let summary = recorder.finish()
FileHandle.standardOutput.write(Data("done \(summary.state) refused=\(refused)\n".utf8))
