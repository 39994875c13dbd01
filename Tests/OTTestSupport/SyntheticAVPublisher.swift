import Foundation
import OTMedia

/// Real RTP for the recording tests: the test pattern (frame numbers stamped in the
/// picture) encoded with libvpx and packetized as OTKit's publisher does (VP8Packetizer,
/// long PictureIDs), and 20 ms Opus packets of silence with a 1 kHz beep at the start of
/// every second of media time, plus the sender-report pairs of both SSRCs.
///
/// Media time starts at 0 for both tracks; RTP timestamps and sequence numbers start
/// just below their wrap so every test crosses it. Cost: a VP8 and an Opus encoder; each
/// call encodes one frame. One thread.
public final class SyntheticAVPublisher {
    /// Picture size.
    public let width: Int, height: Int
    /// Video frames per second.
    public let frameRate: Int
    /// Where the beeps are: every `beepPeriodMilliseconds` of media time, `beepMilliseconds` long.
    public let beepPeriodMilliseconds = 1000, beepMilliseconds = 200
    /// The sender's wall clock at media time 0 (any fixed value).
    public let ntpBaseNanoseconds: UInt64 = 1_700_000_000_000_000_000
    /// First RTP timestamps (below the 2^32 wrap).
    public let videoTimestampBase: UInt32 = 0xFFFF_0000, audioTimestampBase: UInt32 = 0xFFFF_8000
    /// The SSRCs.
    public let videoSSRC: UInt32 = 0x5EC0_0001, audioSSRC: UInt32 = 0x5EC0_0002
    /// The number of the next video frame (its media time is number / frameRate).
    public private(set) var frameNumber: UInt32 = 0
    /// The index of the next 20 ms audio frame.
    public private(set) var audioIndex = 0
    /// Added to each frame number stamped in the picture (tells several publishers apart).
    public var stampOffset: UInt32 = 0
    /// When set, the audio is a continuous tone of this frequency (amplitude `toneAmplitude`)
    /// instead of the beeps.
    public var toneHz: Double?
    /// The tone's amplitude.
    public var toneAmplitude = 4_000.0

    private let vp8: VP8Encoder
    private var packetizer: VP8Packetizer
    private let opus: OpusEncoder
    private let picture: VideoFrame
    private let audio: AudioFrame
    private var videoSequence: UInt16 = 65_500
    private var audioSequence: UInt16 = 65_520
    private var packet = [UInt8](repeating: 0, count: 1500)
    private var opusPacket = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)

    /// A publisher of `width`x`height` at `frameRate` fps.
    public init(width: Int = 160, height: Int = 120, frameRate: Int = 30, bitrateKbps: Int = 200) throws {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        vp8 = try VP8Encoder(settings: VP8EncoderSettings(width: width, height: height, frameRate: Double(frameRate),
                                                          bitrateKbps: bitrateKbps))
        packetizer = try VP8Packetizer(initialPictureID: 32_700)
        opus = try OpusEncoder(settings: OpusEncoderSettings(format: .mono20ms))
        picture = VideoFrame(width: width, height: height)
        audio = AudioFrame(format: .mono20ms)
    }

    /// Media time of video frame `number`, in ns.
    public func videoTime(_ number: UInt32) -> UInt64 { UInt64(number) * 1_000_000_000 / UInt64(frameRate) }
    /// Media time of audio frame `index`, in ns.
    public func audioTime(_ index: Int) -> UInt64 { UInt64(index) * 20_000_000 }

    /// Encodes the next video frame and gives each RTP packet to `emit`. Returns whether it
    /// was a keyframe and its frame number.
    @discardableResult
    public func nextVideoFrame(forceKeyframe: Bool = false, _ emit: (UnsafeRawBufferPointer) -> Void) throws -> (keyframe: Bool, number: UInt32) {
        let number = frameNumber
        frameNumber += 1
        TestPatternRenderer.render(number &+ stampOffset, into: picture)
        picture.timestampNanoseconds = videoTime(number)
        let timestamp = videoTimestampBase &+ UInt32(truncatingIfNeeded: videoTime(number) * 90_000 / 1_000_000_000)
        var keyframe = false
        var failure: Error?
        try vp8.encode(picture, forceKeyframe: forceKeyframe) { frame in
            keyframe = frame.isKeyframe
            do {
                _ = try packetizer.begin(frame)
                try packet.withUnsafeMutableBytes { buffer in
                    while true {
                        let payloadArea = UnsafeMutableRawBufferPointer(rebasing: buffer[RTPHeader.fixedSize...])
                        guard let (length, last) = try packetizer.nextPacket(into: payloadArea) else { break }
                        let header = RTPHeader(payloadType: 96, sequenceNumber: videoSequence, timestamp: timestamp,
                                               ssrc: videoSSRC, marker: last)
                        videoSequence &+= 1
                        _ = try header.write(into: buffer)
                        emit(UnsafeRawBufferPointer(rebasing: buffer[0..<(RTPHeader.fixedSize + length)]))
                    }
                }
            } catch { failure = error }
        }
        if let failure { throw failure }
        return (keyframe, number)
    }

    /// Encodes the next 20 ms of audio and gives its RTP packet to `emit`.
    public func nextAudioFrame(_ emit: (UnsafeRawBufferPointer) -> Void) throws {
        let index = audioIndex
        audioIndex += 1
        let first = index * 960
        for i in 0..<960 {
            let sample = first + i
            let inBeep = (sample / 48) % beepPeriodMilliseconds < beepMilliseconds && sample >= 48 * beepPeriodMilliseconds
            if let toneHz {
                audio.samples[i] = Int16(toneAmplitude * sin(2 * Double.pi * toneHz * Double(sample) / 48_000))
            } else {
                audio.samples[i] = inBeep ? Int16(12_000 * sin(2 * Double.pi * 1000 * Double(sample) / 48_000)) : 0
            }
        }
        audio.samplesPerChannel = 960
        let length = try opusPacket.withUnsafeMutableBytes { try opus.encode(audio, into: $0) }
        let timestamp = audioTimestampBase &+ UInt32(truncatingIfNeeded: first)
        try packet.withUnsafeMutableBytes { buffer in
            let header = RTPHeader(payloadType: 111, sequenceNumber: audioSequence, timestamp: timestamp, ssrc: audioSSRC,
                                   marker: index == 0)
            audioSequence &+= 1
            let headerLength = try header.write(into: buffer)
            opusPacket.withUnsafeBytes { buffer.baseAddress!.advanced(by: headerLength).copyMemory(from: $0.baseAddress!, byteCount: length) }
            emit(UnsafeRawBufferPointer(rebasing: buffer[0..<(headerLength + length)]))
        }
    }

    /// The NTP/RTP pair a sender report of the video (or audio) SSRC carries at media time `t` ns.
    public func senderReport(video: Bool, atMediaTime t: UInt64) -> (ntp: NTPTimestamp, rtp: UInt32) {
        let rate: UInt64 = video ? 90_000 : 48_000
        let base = video ? videoTimestampBase : audioTimestampBase
        return (NTPTimestamp(unixNanoseconds: ntpBaseNanoseconds + t), base &+ UInt32(truncatingIfNeeded: t * rate / 1_000_000_000))
    }
}
