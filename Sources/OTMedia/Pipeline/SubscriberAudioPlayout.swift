/// The subscriber's audio playout thread: one pull per frame duration, paced by the
/// clock; each slot is decoded, rebuilt from FEC, or concealed, so the output never has a
/// gap once it started. Frames go to the sink and the callback outside the lock.
///
/// Cost per slot: one Opus decode (under the audio lock) and one sink write.
final class SubscriberAudioPlayout: @unchecked Sendable {
    private let pipeline: SubscriberPipeline
    private let sink: (any AudioSink)?

    init(pipeline: SubscriberPipeline, sink: (any AudioSink)?) {
        self.pipeline = pipeline
        self.sink = sink
    }

    func run(_ flag: StopFlag) {
        let interval = UInt64(pipeline.configuration.audioFormat.frameMilliseconds) * 1_000_000
        var next = MonotonicClock.nanoseconds()
        while flag.isRunning {
            next += interval
            MonotonicClock.sleep(until: next)
            let now = pipeline.clock.nanoseconds()
            let frame: AudioFrame?
            var playedTimestamp: UInt32?
            do {
                frame = try pipeline.audio.withLock { state throws(MediaError) -> AudioFrame? in
                    try playSlot(&state, now: now, timestamp: &playedTimestamp)
                }
            } catch {
                pipeline.record(error)
                continue
            }
            guard let frame else { continue }
            if let playedTimestamp {
                // This frame reaches the listener about now (the sink adds its own buffer).
                pipeline.lipSync.withLock { $0.audioPlayed(rtpTimestamp: playedTimestamp, at: now) }
            }
            pipeline.audioCounters.frames.add(1, ordering: .relaxed)
            if let sink {
                do { try sink.write(frame) } catch { pipeline.record(error) }
            }
            pipeline.onAudioFrame?(frame)
            // Behind by more than a few frames (a stall): skip ahead rather than burst.
            if MonotonicClock.nanoseconds() > next + 5 * interval { next = MonotonicClock.nanoseconds() }
        }
    }

    private func playSlot(_ state: inout SubscriberAudioState, now: UInt64,
                          timestamp: inout UInt32?) throws(MediaError) -> AudioFrame? {
        switch state.jitter.pull(now: now) {
        case .waiting:
            return nil
        case .decode(let handle):
            guard let buffer = state.packets.remove(handle) else { return try state.decoder.concealLoss(recoveringFrom: nil) }
            defer { pipeline.pool.release(buffer) }
            guard let packet = try? RTPPacket(parsing: UnsafeRawBufferPointer(buffer.bytes)) else {
                return try state.decoder.concealLoss(recoveringFrom: nil)
            }
            timestamp = packet.timestamp
            return try state.decoder.decode(packet.payload)
        case .recoverWithFEC(let nextHandle):
            guard let next = state.packets[nextHandle] else { return try state.decoder.concealLoss(recoveringFrom: nil) }
            return try state.decoder.concealLoss(recoveringFrom: Self.payload(of: next))
        case .conceal:
            return try state.decoder.concealLoss(recoveringFrom: nil)
        }
    }

    /// The Opus payload of an unprotected RTP packet held in `buffer` (checked on insert).
    static func payload(of buffer: PacketBuffer) -> UnsafeRawBufferPointer {
        guard let packet = try? RTPPacket(parsing: UnsafeRawBufferPointer(buffer.bytes)) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return packet.payload
    }
}
