import OTKit
import OTMedia

/// One subscribed stream's pictures and sound: written to `DIR/<stream>.y4m` when
/// recording (a new `<stream>.<n>.y4m` when the size changes, as Y4M has one size per
/// file) and `DIR/<stream>.wav` (this stream's audio alone, 16-bit PCM at the decoded
/// rate, from the first audio frame on; the audio device hears the mix), and
/// counted for the status line, reading the test pattern's frame-number stamps when
/// there are any; `onFirstFrame` runs once, with the first picture's size (the moment a
/// subscriber starts seeing the stream). Called on the subscriber's render thread; read
/// from the main thread. Cost per frame: the picture's rows through stdio, a lock; no
/// allocation.
final class StreamRecorder: OTVideoRender, OTAudioRender, @unchecked Sendable {
    /// The stream recorded.
    let streamId: String
    private let directory: String?
    private let lock = Lock()
    private var writer: Y4MFileWriter?
    private var segments = 0
    private var frames = 0
    private var stamped = 0
    private var width = 0
    private var height = 0
    private var failure: String?
    private var audio: (sink: WAVFileSink, frame: AudioFrame)?
    private var audioFrames = 0
    private let onFirstFrame: @Sendable (_ width: Int, _ height: Int) -> Void

    /// A recorder for `streamId` writing into `directory` (nil: count only).
    init(streamId: String, directory: String?, onFirstFrame: @escaping @Sendable (_ width: Int, _ height: Int) -> Void = { _, _ in }) {
        self.streamId = streamId
        self.directory = directory
        self.onFirstFrame = onFirstFrame
    }

    /// The file name stem: the stream id with anything but letters, digits, - and _ replaced.
    var stem: String { String(streamId.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }) }

    func renderVideoFrame(_ frame: OTVideoFrame) {
        let picture = frame.videoFrame
        let hasStamp = FrameNumberStamp.read(from: picture) != nil
        let first = lock.locked { frames == 0 }
        if first { onFirstFrame(picture.width, picture.height) }
        lock.locked {
            frames += 1
            if hasStamp { stamped += 1 }
            width = picture.width
            height = picture.height
            guard let directory, failure == nil else { return }
            if writer == nil || writer?.format.width != picture.width || writer?.format.height != picture.height {
                writer?.close()
                segments += 1
                let path = "\(directory)/\(stem)\(segments == 1 ? "" : ".\(segments)").y4m"
                do throws(MediaError) { writer = try Y4MFileWriter(path: path, format: VideoFormat(width: picture.width, height: picture.height, frameRate: 30)) } catch {
                    failure = error.message
                    return
                }
            }
            do throws(MediaError) { try writer?.write(picture) } catch { failure = error.message }
        }
    }

    func renderAudioFrame(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int, channels: Int) {
        lock.locked {
            audioFrames += 1
            guard let directory, failure == nil else { return }
            if audio == nil {
                let format = AudioFormat(sampleRate: sampleRate, channels: channels, frameMilliseconds: 20)
                do throws(MediaError) {
                    let sink = try WAVFileSink(path: "\(directory)/\(stem).wav", format: format)
                    try sink.start()
                    audio = (sink, AudioFrame(format: format, capacity: max(samples.count, format.samplesPerFrame)))
                } catch {
                    failure = error.message
                    return
                }
            }
            guard let (sink, frame) = audio, frame.format.channels == channels, frame.format.sampleRate == sampleRate,
                  samples.count <= frame.capacity, let base = samples.baseAddress else { return }
            frame.samples.update(from: base, count: samples.count)
            frame.samplesPerChannel = samples.count / channels
            do throws(MediaError) { try sink.write(frame) } catch { failure = error.message }
        }
    }

    /// Audio frames heard so far.
    var audioFrameCount: Int { lock.locked { audioFrames } }

    /// Frames so far, how many carried a readable stamp, the last size, and a write error if one happened.
    func counts() -> (frames: Int, stamped: Int, width: Int, height: Int, failure: String?) {
        lock.locked { (frames, stamped, width, height, failure) }
    }

    /// Flushes and closes the files.
    func close() { lock.locked { writer?.close(); writer = nil; audio?.sink.stop(); audio = nil } }
}
