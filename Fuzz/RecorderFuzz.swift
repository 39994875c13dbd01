// fuzz-max-runs: 20000
import Glibc
import OTMedia
import OTRecording

/// libFuzzer target: arbitrary RTP for a `StreamRecorder` writing a real WebM file (on
/// /dev/shm when it exists). The input is a byte 0 of options (bit 0: no video track, bit 1:
/// no audio track) and then records `[kind][length: 2 bytes LE][arrival step ms][bytes…]`:
/// kind % 4 = 0 a VP8 packet and 1 an Opus packet with a header built from the record's
/// first 7 bytes (sequence, timestamp, marker, payload type) so hostile sequence numbers,
/// timestamps and sizes reach the reassembly and the timeline, 2 a sender report (NTP,
/// RTP timestamp, track), 3 the bytes as a whole packet as they are (any header). The
/// recorder must take everything, never trap, and finish with a summary. Each execution
/// starts a writer thread and writes a file (about 900 executions per second on one core),
/// so CI runs are capped at 20,000 (`fuzz-max-runs`); the full run:
/// `OTKIT_FUZZ_UNCAPPED=1 scripts/fuzz 1000000 Recorder` (1,000,000 in 1,110 s, no crash).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecorder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    var configuration = StreamRecorderConfiguration(path: "\(directory)/otkit-recorder-fuzz-\(getpid()).webm")
    configuration.hasVideo = bytes[0] & 1 == 0
    configuration.hasAudio = bytes[0] & 2 == 0 || !configuration.hasVideo
    configuration.queueCapacity = 256
    configuration.clusterMilliseconds = 100
    let recorder = StreamRecorder(configuration: configuration)
    var arrival = MonotonicClock.nanoseconds()
    var index = 1
    var packet: [UInt8] = []
    packet.reserveCapacity(1500)
    while index + 4 <= size {
        let kind = bytes[index] % 4
        let length = min(Int(bytes[index + 1]) | Int(bytes[index + 2]) << 8, size - index - 4)
        arrival += UInt64(bytes[index + 3]) * 1_000_000
        let body = UnsafeBufferPointer(rebasing: bytes[(index + 4)..<(index + 4 + length)])
        index += 4 + length
        func field(_ at: Int) -> UInt8 { at < body.count ? body[at] : 0 }
        switch kind {
        case 0, 1:
            let track: RecordingTrack = kind == 0 ? .video : .audio
            packet.removeAll(keepingCapacity: true)
            packet.append(0x80)
            packet.append((field(2) & 0x80) | (kind == 0 ? 96 : 111))
            packet.append(contentsOf: [field(0), field(1), field(3), field(4), field(5), field(6)])
            packet.append(contentsOf: [0, 0, 0, kind == 0 ? 1 : 2])  // SSRC
            if body.count > 7 { packet.append(contentsOf: body[7...]) }
            packet.withUnsafeBytes { _ = recorder.enqueue(track, rtp: $0, arrivalNanoseconds: arrival) }
        case 2:
            var ntp: UInt64 = 0
            for offset in 0..<8 { ntp = ntp << 8 | UInt64(field(offset)) }
            var rtp: UInt32 = 0
            for offset in 8..<12 { rtp = rtp << 8 | UInt32(field(offset)) }
            recorder.enqueueSenderReport(field(12) & 1 == 0 ? .video : .audio, ntpTimestamp: NTPTimestamp(rawValue: ntp),
                                         rtpTimestamp: rtp, arrivalNanoseconds: arrival)
        default:
            _ = recorder.enqueue(field(0) & 1 == 0 ? .video : .audio, rtp: UnsafeRawBufferPointer(body), arrivalNanoseconds: arrival)
        }
    }
    let summary = recorder.finish()
    precondition(summary.size >= 0 && summary.durationMilliseconds >= 0, "a summary with negative figures")
    unlink(configuration.path)
    return 0
}
