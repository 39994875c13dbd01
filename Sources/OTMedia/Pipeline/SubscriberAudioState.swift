/// The subscriber's audio packets shared by the receive thread (inserting) and the
/// playout thread (taking them out): the jitter buffer and the packet buffers it holds.
/// Guarded by one lock in `SubscriberPipeline` that covers bookkeeping only; decoding
/// happens outside it, on the playout thread.
struct SubscriberAudioState: ~Copyable, @unchecked Sendable {
    let jitter: AudioJitterBuffer
    let packets: HandleTable<PacketBuffer>

    init(configuration: SubscriberConfiguration) {
        jitter = AudioJitterBuffer(targetDelayMilliseconds: configuration.audioTargetDelayMilliseconds)
        packets = HandleTable(capacity: 64)
    }
}
