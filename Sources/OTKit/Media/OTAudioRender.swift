/// Where one subscriber's decoded audio goes besides the audio device (`OTSubscriberKit.audioRender`).
///
/// An OTKit addition: OpenTok plays every subscriber through one audio device, mixed, so
/// a stream's own sound cannot be recorded or analysed. Called on the subscriber's playout
/// thread once per 20 ms frame while `subscribeToAudio` is on (concealed frames included,
/// so the timeline has no holes): return quickly, and copy what you keep, since `samples`
/// is valid only during the call.
public protocol OTAudioRender: AnyObject, Sendable {
    /// One frame: `samples` holds `samples.count / channels` samples per channel,
    /// interleaved 16-bit PCM at `sampleRate`.
    func renderAudioFrame(_ samples: UnsafeBufferPointer<Int16>, sampleRate: Int, channels: Int)
}
