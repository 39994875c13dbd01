import OTMedia

/// The composer thread's side of one stream: drains its `ComposerStreamInput` ring, puts
/// each track through a small reorder window, reassembles and decodes VP8 (libvpx, via
/// `VP8Decoder`) keeping the latest picture, and decodes Opus (`OpusDecoder`, mono 48 kHz)
/// onto the composer's timeline (`AudioPlayoutRing`: anchored on arrival plus a playout
/// delay, then by RTP timestamp) for the mixer; a lost packet is a gap of silence.
///
/// Video rules: decoding starts at a keyframe; after a lost or incomplete frame, or a
/// frame libvpx rejects, delta frames are skipped until the next keyframe and the input's
/// `needsKeyframe` is raised (the router sends a PLI), so the held picture is never
/// broken — it stays the last good one meanwhile.
///
/// Cost: two 64-packet reorder windows, a VP8 and an Opus decoder, an audio ring of
/// `audioCapacitySamples` (two seconds unless the composer may lag longer); per packet a
/// parse and copies, per frame libvpx's decode and a picture copy.
/// Composer thread only.
final class ComposerStreamDecoder {
    let input: ComposerStreamInput
    private let wantsVideo: Bool
    private let wantsAudio: Bool
    private let videoReorder: PacketReorderBuffer
    private let audioReorder: PacketReorderBuffer
    private let depacketizer = VP8Depacketizer()
    private var videoDecoder: VP8Decoder?
    private var audioDecoder: OpusDecoder?
    private var waitingForKeyframe = true
    /// The composer's start (`MonotonicClock`), origin of the audio positions.
    private let originNanoseconds: UInt64
    /// The latest decoded picture (held until the next one).
    private(set) var picture: VideoFrame?
    /// Decoded audio placed for the mixer.
    let audio: AudioPlayoutRing
    /// What the layout knows of the stream, refreshed when its classes change.
    private(set) var layoutStream: LayoutStream
    private var classGenerationSeen: Int
    /// Counters: frames decoded, frames skipped or failed, audio packets decoded.
    private(set) var framesDecoded = 0
    private(set) var framesDiscarded = 0
    private(set) var audioPacketsDecoded = 0

    init(input: ComposerStreamInput, wantsVideo: Bool, wantsAudio: Bool, reorderDepth: Int, reorderTimeoutNanoseconds: UInt64,
         originNanoseconds: UInt64, audioDelaySamples: Int64, audioCapacitySamples: Int = 96_000) {
        self.input = input
        self.originNanoseconds = originNanoseconds
        audio = AudioPlayoutRing(capacity: audioCapacitySamples, delaySamples: audioDelaySamples)
        self.wantsVideo = wantsVideo
        self.wantsAudio = wantsAudio
        videoReorder = PacketReorderBuffer(slotSize: input.queue.slotSize, depth: reorderDepth, timeoutNanoseconds: reorderTimeoutNanoseconds)
        audioReorder = PacketReorderBuffer(slotSize: input.queue.slotSize, depth: reorderDepth, timeoutNanoseconds: reorderTimeoutNanoseconds)
        videoDecoder = wantsVideo ? try? VP8Decoder() : nil
        audioDecoder = wantsAudio ? try? OpusDecoder(format: .mono20ms) : nil
        classGenerationSeen = input.classGeneration.load(ordering: .acquiring)
        layoutStream = input.layoutStream
    }

    /// True when the stream's layout classes changed since the last call (and takes them).
    func refreshClasses() -> Bool {
        let generation = input.classGeneration.load(ordering: .acquiring)
        guard generation != classGenerationSeen else { return false }
        classGenerationSeen = generation
        let latest = input.layoutStream
        defer { layoutStream = latest }
        return latest != layoutStream
    }

    /// Handles what is queued that arrived by `now` (the instant the composer works on: the
    /// wall clock, or a past frame's time when it runs behind), then releases packets that
    /// had waited too long behind a hole by then.
    func drain(now: UInt64) {
        while input.queue.pop(arrivedBy: now, { entry, bytes in handle(entry, bytes) }) {}
        videoReorder.expire(now: now) { bytes, _ in processVideo(bytes) }
        audioReorder.expire(now: now) { bytes, arrival in processAudio(bytes, arrival: arrival) }
    }

    /// Handles what is left in the windows (at the end).
    func flush() {
        videoReorder.drain { bytes, _ in processVideo(bytes) }
        audioReorder.drain { bytes, arrival in processAudio(bytes, arrival: arrival) }
    }

    private func handle(_ entry: RecordingPacketQueue.Entry, _ bytes: UnsafeRawBufferPointer) {
        guard entry.kind <= 1, let packet = try? RTPPacket(parsing: bytes) else { return }
        if entry.kind == 0 {
            guard wantsVideo else { return }
            videoReorder.insert(bytes, sequence: packet.sequenceNumber, arrival: entry.arrival) { bytes, _ in processVideo(bytes) }
        } else {
            guard wantsAudio else { return }
            audioReorder.insert(bytes, sequence: packet.sequenceNumber, arrival: entry.arrival) { bytes, arrival in processAudio(bytes, arrival: arrival) }
        }
    }

    private func processVideo(_ bytes: UnsafeRawBufferPointer) {
        guard let packet = try? RTPPacket(parsing: bytes) else { return }
        depacketizer.push(payload: packet.payload, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                          marker: packet.marker) { event in
            switch event {
            case .frame(let frame):
                decode(frame)
            case .incompleteFrame, .lostFrames:
                framesDiscarded += 1
                askForKeyframe()
            }
        }
    }

    private func decode(_ frame: VP8AssembledFrame) {
        if waitingForKeyframe {
            guard frame.isKeyframe else {
                framesDiscarded += 1
                input.keyframeNeeded.store(true, ordering: .releasing)
                return
            }
            waitingForKeyframe = false
            input.keyframeNeeded.store(false, ordering: .releasing)
        }
        guard let videoDecoder else { return }
        do {
            if let decoded = try videoDecoder.decode(frame.data) {
                picture = decoded
                framesDecoded += 1
            }
        } catch {
            framesDiscarded += 1
            askForKeyframe()
        }
    }

    private func askForKeyframe() {
        waitingForKeyframe = true
        input.keyframeNeeded.store(true, ordering: .releasing)
    }

    private func processAudio(_ bytes: UnsafeRawBufferPointer, arrival: UInt64) {
        guard let packet = try? RTPPacket(parsing: bytes), let audioDecoder, packet.payload.count > 0 else { return }
        let arrivalPosition = Int64(arrival > originNanoseconds ? (arrival - originNanoseconds) * 48 / 1_000_000 : 0)
        let position = audio.position(timestamp: packet.timestamp, arrivalPosition: arrivalPosition)
        guard let frame = try? audioDecoder.decode(packet.payload) else { return }
        audio.write(frame.samples, count: frame.samplesPerChannel, at: position)
        audioPacketsDecoded += 1
    }
}
