import Foundation
import OTMedia

/// What a test holding the secret and the session id makes of what a `RawEdgeSubscriber`
/// received, with OTMedia's public API only (as a user writing their own receiver would):
/// each frame opened as `clear ‖ SFrame` (`SFrameFrameLayout`, `SFrameBaseKey`,
/// `SFrameReceiver`) or taken as it came (no secret), then decoded with libvpx and libopus,
/// and 24-byte probes from past each frame's clear prefix looked for in the payloads the
/// router forwarded.
struct ForwardedMediaCheck: CustomStringConvertible {
    var videoFrames = 0, videoOpened = 0, videoDecoded = 0, videoDecodeErrors = 0
    var audioPackets = 0, audioOpened = 0, audioDecoded = 0, audioDecodeErrors = 0
    var videoProbes = 0, videoProbesFound = 0, audioProbes = 0, audioProbesFound = 0

    /// Opens (when `secret` is given) and decodes `received`, and runs the probe search.
    init(_ received: RawEdgeSubscriber.Received, secret: String?, sessionId: String) throws {
        let key = try secret.map { try SFrameBaseKey(secret: $0, sessionID: sessionId) }
        let videoReceiver = key.map { SFrameReceiver(baseKey: $0) }, audioReceiver = key.map { SFrameReceiver(baseKey: $0) }

        // Video: open every frame; decode from the first keyframe on.
        let vp8 = try VP8Decoder()
        var plainVideo: [[UInt8]] = []
        var started = false
        for frame in received.videoFrames {
            videoFrames += 1
            let clear = frame.bytes.withUnsafeBytes { SFrameFrameLayout.vp8ClearBytes($0) }
            guard let plain = Self.open(frame.bytes, clear: clear, videoReceiver) else { continue }
            videoOpened += 1
            plainVideo.append(plain)
            started = started || frame.keyframe
            guard started else { continue }
            do {
                if try plain.withUnsafeBytes({ try vp8.decode($0) }) != nil { videoDecoded += 1 }
            } catch { videoDecodeErrors += 1 }
        }

        // Audio: every Opus packet opened and decoded.
        let opus = try OpusDecoder(format: .mono20ms)
        var plainAudio: [[UInt8]] = []
        for packet in received.audioPayloads {
            audioPackets += 1
            guard let plain = Self.open(packet, clear: SFrameFrameLayout.opusClearBytes, audioReceiver) else { continue }
            audioOpened += 1
            plainAudio.append(plain)
            do {
                _ = try plain.withUnsafeBytes { try opus.decode($0) }
                audioDecoded += 1
            } catch { audioDecodeErrors += 1 }
        }

        (videoProbes, videoProbesFound) = Self.search(plainVideo, in: received.videoPayloads) { plain in
            plain.withUnsafeBytes { SFrameFrameLayout.vp8ClearBytes($0) }
        }
        (audioProbes, audioProbesFound) = Self.search(plainAudio, in: received.audioPayloads) { _ in SFrameFrameLayout.opusClearBytes }
    }

    /// `frame` opened as `clear ‖ SFrame` (the clear bytes are the AAD's metadata), or as
    /// it is without a receiver; nil when it does not verify.
    private static func open(_ frame: [UInt8], clear: Int, _ receiver: SFrameReceiver?) -> [UInt8]? {
        guard let receiver else { return frame }
        guard frame.count >= clear else { return nil }
        var plain = [UInt8](repeating: 0, count: frame.count)
        let length = frame.withUnsafeBytes { sealed in
            plain.withUnsafeMutableBytes { output -> Int? in
                output.baseAddress!.copyMemory(from: sealed.baseAddress!, byteCount: clear)
                let opened = try? receiver.decrypt(UnsafeRawBufferPointer(rebasing: sealed[clear...]),
                                                   metadata: UnsafeRawBufferPointer(rebasing: sealed[0..<clear]),
                                                   into: UnsafeMutableRawBufferPointer(rebasing: output[clear...]))
                return opened.map { clear + $0.length }
            }
        }
        return length.map { Array(plain.prefix($0)) }
    }

    /// Each frame's first 24 bytes past its clear prefix, looked for anywhere in `payloads`.
    private static func search(_ frames: [[UInt8]], in payloads: [[UInt8]], clear: ([UInt8]) -> Int) -> (Int, Int) {
        let haystack = Data(payloads.joined())
        var probes = 0, found = 0
        for frame in frames {
            let start = clear(frame)
            guard frame.count >= start + 24 else { continue }
            probes += 1
            if haystack.range(of: Data(frame[start..<(start + 24)])) != nil { found += 1 }
        }
        return (probes, found)
    }

    var description: String {
        "video: \(videoOpened) of \(videoFrames) frames opened, \(videoDecoded) decoded, \(videoDecodeErrors) decode errors, " +
            "\(videoProbesFound) of \(videoProbes) probes found; audio: \(audioOpened) of \(audioPackets) packets opened, " +
            "\(audioDecoded) decoded, \(audioDecodeErrors) decode errors, \(audioProbesFound) of \(audioProbes) probes found"
    }
}
