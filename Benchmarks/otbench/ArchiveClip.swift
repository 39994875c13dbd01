import Foundation
import OTMedia

/// The pre-recorded RTP `otbench archive` feeds to both recorders: the test pattern at
/// 640x480 30 fps encoded once with libvpx (about 1 Mbit/s, a keyframe every 2 s) and
/// packetized as OTKit's publisher does (`VP8Packetizer`), and a 440 Hz tone in 20 ms Opus
/// packets (mono, 48 kHz), each packet tagged with its media time; plus the sender-report
/// pairs of both SSRCs every second. Built in memory before anything is timed.
struct ArchiveClip {
    /// One RTP packet (or, with `report` set, one sender report) at `mediaNanoseconds`.
    struct Packet {
        let video: Bool
        let mediaNanoseconds: UInt64
        let bytes: [UInt8]
        var report: (ntp: NTPTimestamp, rtp: UInt32)?
    }

    static let width = 640, height = 480, frameRate = 30, bitrateKbps = 1000
    static let videoPayloadType: UInt8 = 96, audioPayloadType: UInt8 = 111

    /// Every packet in media-time order (the order a router forwards them).
    let packets: [Packet]
    let videoFrames: Int
    let audioPackets: Int
    let videoPackets: Int
    let bytes: Int
    var seconds: Double { Double(videoFrames) / Double(Self.frameRate) }

    /// Encodes `frames` video frames (at `videoKbps`, default `bitrateKbps`) and the audio
    /// of the same duration.
    static func make(frames: Int, videoKbps: Int = bitrateKbps) throws -> ArchiveClip {
        let vp8 = try VP8Encoder(settings: VP8EncoderSettings(width: width, height: height, frameRate: Double(frameRate),
                                                              bitrateKbps: videoKbps))
        var packetizer = try VP8Packetizer(initialPictureID: 100)
        let opus = try OpusEncoder(settings: OpusEncoderSettings(format: .mono20ms))
        let picture = VideoFrame(width: width, height: height)
        let audio = AudioFrame(format: .mono20ms)
        var opusPacket = [UInt8](repeating: 0, count: OpusEncoder.maximumPacketSize)
        var buffer = [UInt8](repeating: 0, count: 1500)
        var packets: [Packet] = []
        var videoSequence: UInt16 = 1000, audioSequence: UInt16 = 2000
        let videoSSRC: UInt32 = 0x0A0C_0001, audioSSRC: UInt32 = 0x0A0C_0002
        let ntpBase: UInt64 = 1_750_000_000_000_000_000
        let audioFrames = frames * 50 / frameRate
        var videoIndex = 0, audioIndex = 0, videoPackets = 0, total = 0
        var nextReport: UInt64 = 0
        while videoIndex < frames || audioIndex < audioFrames {
            let videoTime = UInt64(videoIndex) * 1_000_000_000 / UInt64(frameRate)
            let audioTime = UInt64(audioIndex) * 20_000_000
            let next = min(videoIndex < frames ? videoTime : .max, audioIndex < audioFrames ? audioTime : .max)
            if next >= nextReport {
                for video in [true, false] {
                    let rate: UInt64 = video ? 90_000 : 48_000
                    let rtp = UInt32(truncatingIfNeeded: nextReport * rate / 1_000_000_000)
                    packets.append(Packet(video: video, mediaNanoseconds: nextReport, bytes: [],
                                          report: (NTPTimestamp(unixNanoseconds: ntpBase + nextReport), rtp)))
                }
                nextReport += 1_000_000_000
            }
            if videoIndex < frames, videoTime <= audioTime || audioIndex >= audioFrames {
                TestPatternRenderer.render(UInt32(videoIndex), into: picture)
                picture.timestampNanoseconds = videoTime
                let timestamp = UInt32(truncatingIfNeeded: videoTime * 90_000 / 1_000_000_000)
                var failure: Error?
                try vp8.encode(picture, forceKeyframe: videoIndex % 60 == 0) { frame in
                    do {
                        _ = try packetizer.begin(frame)
                        try buffer.withUnsafeMutableBytes { raw in
                            while true {
                                let area = UnsafeMutableRawBufferPointer(rebasing: raw[RTPHeader.fixedSize...])
                                guard let (length, last) = try packetizer.nextPacket(into: area) else { break }
                                let header = RTPHeader(payloadType: videoPayloadType, sequenceNumber: videoSequence,
                                                       timestamp: timestamp, ssrc: videoSSRC, marker: last)
                                videoSequence &+= 1
                                _ = try header.write(into: raw)
                                packets.append(Packet(video: true, mediaNanoseconds: videoTime,
                                                      bytes: Array(raw[0..<(RTPHeader.fixedSize + length)])))
                                videoPackets += 1
                                total += RTPHeader.fixedSize + length
                            }
                        }
                    } catch { failure = error }
                }
                if let failure { throw failure }
                videoIndex += 1
            } else {
                let first = audioIndex * 960
                for i in 0..<960 {
                    audio.samples[i] = Int16(8_000 * sin(2 * Double.pi * 440 * Double(first + i) / 48_000))
                }
                audio.samplesPerChannel = 960
                let length = try opusPacket.withUnsafeMutableBytes { try opus.encode(audio, into: $0) }
                let header = RTPHeader(payloadType: audioPayloadType, sequenceNumber: audioSequence,
                                       timestamp: UInt32(truncatingIfNeeded: first), ssrc: audioSSRC, marker: audioIndex == 0)
                audioSequence &+= 1
                try buffer.withUnsafeMutableBytes { raw in
                    let headerLength = try header.write(into: raw)
                    opusPacket.withUnsafeBytes { raw.baseAddress!.advanced(by: headerLength).copyMemory(from: $0.baseAddress!, byteCount: length) }
                    packets.append(Packet(video: false, mediaNanoseconds: audioTime, bytes: Array(raw[0..<(headerLength + length)])))
                    total += headerLength + length
                }
                audioIndex += 1
            }
        }
        return ArchiveClip(packets: packets, videoFrames: frames, audioPackets: audioFrames, videoPackets: videoPackets,
                           bytes: total)
    }

    /// The SDP that tells ffmpeg what arrives on `videoPort` and `audioPort` (loopback).
    func sdp(videoPort: Int, audioPort: Int) -> String {
        """
        v=0
        o=- 0 0 IN IP4 127.0.0.1
        s=otbench archive
        c=IN IP4 127.0.0.1
        t=0 0
        m=video \(videoPort) RTP/AVP \(Self.videoPayloadType)
        a=rtpmap:\(Self.videoPayloadType) VP8/90000
        m=audio \(audioPort) RTP/AVP \(Self.audioPayloadType)
        a=rtpmap:\(Self.audioPayloadType) opus/48000/2

        """
    }
}
