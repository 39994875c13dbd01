/// The subscriber's audio path shared by the receive thread (inserting packets) and the
/// playout thread (pulling frames): the jitter buffer, the packet buffers it holds, and
/// the Opus decoder. Guarded by one lock in `SubscriberPipeline`.
struct SubscriberAudioState: ~Copyable, @unchecked Sendable {
    let jitter: AudioJitterBuffer
    let packets: HandleTable<PacketBuffer>
    let decoder: OpusDecoder

    init(configuration: SubscriberConfiguration) throws(MediaError) {
        jitter = AudioJitterBuffer(targetDelayMilliseconds: configuration.audioTargetDelayMilliseconds)
        packets = HandleTable(capacity: 64)
        decoder = try OpusDecoder(format: configuration.audioFormat)
    }
}
