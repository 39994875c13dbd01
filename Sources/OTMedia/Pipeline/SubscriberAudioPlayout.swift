/// The subscriber's audio playout thread: one pull per frame duration, paced by the
/// clock; each slot is decoded, rebuilt from FEC, or concealed, so the output never has a
/// gap once it started (a packet the decoder refuses is concealed too).
///
/// Only this thread touches the Opus decoder. Under the audio lock it takes the slot's
/// packet out of the jitter buffer (or, for FEC, copies the next packet's payload, which
/// stays buffered) and decodes after unlocking, so the receive thread never waits behind
/// a decode. Cost per slot: one Opus decode and one sink write; a payload copy only when
/// rebuilding a lost packet.
final class SubscriberAudioPlayout: @unchecked Sendable {
    private let pipeline: SubscriberPipeline
    private let sink: (any AudioSink)?
    private let decoder: OpusDecoder
    /// The next packet's payload while rebuilding a lost one (an Opus packet is ≤ 1275 bytes × 3).
    private let fecPayload = UnsafeMutableRawBufferPointer.allocate(byteCount: OpusEncoder.maximumPacketSize, alignment: 16)

    /// What to do for one slot, decided under the lock.
    private enum Slot {
        case waiting
        case decode(PacketBuffer)
        case recover(payloadBytes: Int)
        case conceal
    }

    init(pipeline: SubscriberPipeline, sink: (any AudioSink)?) throws(MediaError) {
        self.pipeline = pipeline
        self.sink = sink
        decoder = try OpusDecoder(format: pipeline.configuration.audioFormat)
    }

    deinit { fecPayload.deallocate() }

    func run(_ flag: StopFlag) {
        let interval = UInt64(pipeline.configuration.audioFormat.frameMilliseconds) * 1_000_000
        var next = MonotonicClock.nanoseconds()
        while flag.isRunning {
            next += interval
            MonotonicClock.sleep(until: next)
            let now = pipeline.clock.nanoseconds()
            let slot = pipeline.audio.withLock { state in take(&state, now: now) }
            var playedTimestamp: UInt32?
            guard let frame = play(slot, timestamp: &playedTimestamp) else { continue }
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

    /// Bookkeeping only (under the audio lock): what the slot needs, its packet moved out.
    private func take(_ state: inout SubscriberAudioState, now: UInt64) -> Slot {
        switch state.jitter.pull(now: now) {
        case .waiting:
            return .waiting
        case .decode(let handle):
            return state.packets.remove(handle).map(Slot.decode) ?? .conceal
        case .recoverWithFEC(let nextHandle):
            guard let next = state.packets[nextHandle], let payload = Self.payload(of: next),
                  payload.count <= fecPayload.count, let base = payload.baseAddress else { return .conceal }
            fecPayload.baseAddress!.copyMemory(from: base, byteCount: payload.count)
            return .recover(payloadBytes: payload.count)
        case .conceal:
            return .conceal
        }
    }

    /// Decodes outside the lock; a refused packet is concealed so the slot still sounds.
    private func play(_ slot: Slot, timestamp: inout UInt32?) -> AudioFrame? {
        do throws(MediaError) {
            switch slot {
            case .waiting:
                return nil
            case .decode(let buffer):
                defer { pipeline.pool.release(buffer) }
                guard let packet = try? RTPPacket(parsing: UnsafeRawBufferPointer(buffer.bytes)) else {
                    return try decoder.concealLoss(recoveringFrom: nil)
                }
                timestamp = packet.timestamp
                do throws(MediaError) { return try decoder.decode(packet.payload) } catch {
                    pipeline.record(error)
                    return try decoder.concealLoss(recoveringFrom: nil)
                }
            case .recover(let bytes):
                return try decoder.concealLoss(recoveringFrom: UnsafeRawBufferPointer(rebasing: fecPayload[0..<bytes]))
            case .conceal:
                return try decoder.concealLoss(recoveringFrom: nil)
            }
        } catch {
            pipeline.record(error)
            return nil
        }
    }

    /// The Opus payload of an unprotected RTP packet held in `buffer` (checked on insert).
    static func payload(of buffer: PacketBuffer) -> UnsafeRawBufferPointer? {
        (try? RTPPacket(parsing: UnsafeRawBufferPointer(buffer.bytes)))?.payload
    }
}
