/// Reassembles VP8 frames from RTP packets (RFC 7741) that arrive in sequence order
/// (a jitter buffer orders them first), and reports what it cannot reassemble.
///
/// Per packet it reads the payload descriptor; a packet with S = 1 and PID = 0 starts a
/// frame, the marker bit ends it, and all packets of a frame share one RTP timestamp.
/// It detects: a sequence-number gap inside a frame (`missingPackets`), a frame whose
/// first packet is missing (`missingFirstPacket`), a frame whose marker packet never
/// came (the timestamp changed, or a new frame started, first: `missingPackets`),
/// malformed payloads (`invalidPayload`), and whole
/// lost frames from a PictureID jump (15- or 7-bit, across the wrap; a frame that was
/// only partly received still counts as seen). Keyframes are found from the VP8 frame
/// tag (P bit = 0) of the frame's first bytes; their width and height are read from
/// the keyframe header (after the 9d 01 2a start code). Duplicate packets (the same
/// sequence number twice in a row) are ignored.
///
/// Memory: frames are assembled into one buffer owned by the depacketizer. It starts
/// at `initialCapacity` and grows (doubling) only when a frame is larger than any
/// before, up to `maximumFrameSize`; it never shrinks. So after the largest frame (in
/// practice the first keyframe) every push runs without allocating. A frame beyond
/// `maximumFrameSize` is reported as `invalidPayload` rather than grown into.
///
/// Not thread-safe: one stream on one thread (`@unchecked Sendable` so a pipeline can
/// hand it to that thread). Cost per packet: descriptor parse and one copy of the
/// fragment.
public final class VP8Depacketizer: @unchecked Sendable {
    /// Counters since creation.
    public struct Statistics: Sendable, Equatable {
        /// Packets pushed (duplicates included).
        public var packets = 0
        /// Packets ignored as duplicates.
        public var duplicatePackets = 0
        /// Complete frames emitted.
        public var framesCompleted = 0
        /// Complete keyframes emitted.
        public var keyframes = 0
        /// Frames reported incomplete.
        public var framesIncomplete = 0
        /// Frames lost whole (from PictureID gaps).
        public var framesLost = 0
    }

    /// The largest frame the depacketizer will assemble.
    public let maximumFrameSize: Int
    /// Counters since creation.
    public private(set) var statistics = Statistics()

    private var buffer: UnsafeMutableRawPointer
    /// Bytes allocated for `buffer`.
    public private(set) var capacity: Int

    // The frame being assembled.
    private var inFrame = false
    private var defect: VP8FrameDefect?
    private var length = 0
    private var timestamp: UInt32 = 0
    private var firstSequence: UInt16 = 0
    private var startDescriptor = VP8PayloadDescriptor()
    // Across frames.
    private var lastSequence: UInt16?
    private var lastPictureID: UInt16?
    private var width = 0
    private var height = 0

    /// A depacketizer with a `initialCapacity`-byte frame buffer that may grow up to
    /// `maximumFrameSize` bytes. Cost: one allocation of `initialCapacity` bytes.
    public init(initialCapacity: Int = 64 * 1024, maximumFrameSize: Int = 8 * 1024 * 1024) {
        capacity = max(1, min(initialCapacity, maximumFrameSize))
        self.maximumFrameSize = max(1, maximumFrameSize)
        buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Forgets the frame in progress and the sequence/PictureID history (e.g. after the
    /// jitter buffer flushed). The buffer and counters stay.
    public func reset() {
        inFrame = false
        defect = nil
        length = 0
        lastSequence = nil
        lastPictureID = nil
    }

    /// Pushes one parsed RTP packet; `handler` receives the events it causes, in order,
    /// before this returns. A frame view is valid only inside `handler`.
    public func push(_ packet: RTPPacket, _ handler: (VP8DepacketizerEvent) -> Void) {
        push(payload: packet.payload, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
             marker: packet.marker, handler)
    }

    /// Pushes one packet given as its RTP payload and header fields.
    public func push(payload: UnsafeRawBufferPointer, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                     _ handler: (VP8DepacketizerEvent) -> Void) {
        statistics.packets += 1
        if let lastSequence, lastSequence == sequenceNumber {
            statistics.duplicatePackets += 1
            return
        }
        let sequenceGap = lastSequence.map { sequenceNumber != $0 &+ 1 } ?? false
        lastSequence = sequenceNumber

        let parsed = try? VP8PayloadDescriptor.parse(payload)
        // A new timestamp (or a new frame start) before the marker: the previous
        // frame's end is missing.
        if inFrame, timestamp != self.timestamp || parsed?.descriptor.startsFrame == true {
            finishIncomplete(defect ?? .missingPackets, handler)
        }
        if inFrame, sequenceGap, defect == nil { defect = .missingPackets }

        if !inFrame {
            inFrame = true
            self.timestamp = timestamp
            firstSequence = sequenceNumber
            length = 0
            defect = nil
            startDescriptor = parsed?.descriptor ?? VP8PayloadDescriptor()
            if let descriptor = parsed?.descriptor {
                checkPictureID(descriptor, handler)
                if !descriptor.startsFrame { defect = .missingFirstPacket }
            } else {
                defect = .invalidPayload
            }
        }

        if let parsed, defect == nil {
            let fragment = payload.view(parsed.length..<payload.count)
            if append(fragment) == false { defect = .invalidPayload }
        } else if parsed == nil, defect == nil {
            defect = .invalidPayload
        }

        guard marker else { return }
        if let defect {
            finishIncomplete(defect, handler)
            return
        }
        let frame = UnsafeRawBufferPointer(start: buffer, count: length)
        guard let header = try? VP8FrameHeader(parsing: frame) else {
            finishIncomplete(.invalidPayload, handler)
            return
        }
        if header.isKeyframe {
            width = header.width
            height = header.height
            statistics.keyframes += 1
        }
        statistics.framesCompleted += 1
        inFrame = false
        handler(.frame(VP8AssembledFrame(
            data: frame, isKeyframe: header.isKeyframe, pictureID: startDescriptor.pictureID,
            tl0PicIdx: startDescriptor.tl0PicIdx, temporalLayer: startDescriptor.temporalLayer,
            layerSync: startDescriptor.layerSync, rtpTimestamp: timestamp,
            firstSequenceNumber: firstSequence, lastSequenceNumber: sequenceNumber,
            width: width, height: height)))
    }

    /// Reports the frame in progress as incomplete and closes it.
    private func finishIncomplete(_ defect: VP8FrameDefect, _ handler: (VP8DepacketizerEvent) -> Void) {
        statistics.framesIncomplete += 1
        inFrame = false
        self.defect = nil
        handler(.incompleteFrame(rtpTimestamp: timestamp, pictureID: startDescriptor.pictureID, defect: defect))
    }

    /// Reports frames skipped between the last PictureID seen and this one.
    private func checkPictureID(_ descriptor: VP8PayloadDescriptor, _ handler: (VP8DepacketizerEvent) -> Void) {
        guard let pictureID = descriptor.pictureID else { return }
        defer { lastPictureID = pictureID }
        guard let last = lastPictureID else { return }
        let modulus = descriptor.longPictureID ? Int(VP8PayloadDescriptor.maxLongPictureID) + 1
                                               : Int(VP8PayloadDescriptor.maxShortPictureID) + 1
        let step = (Int(pictureID) - Int(last) + modulus) % modulus
        // Forward jumps of up to half the space are losses; larger ones are treated
        // as a restart (a new sender) or a reordering, not as thousands of lost frames.
        guard step > 1, step < modulus / 2 else { return }
        statistics.framesLost += step - 1
        handler(.lostFrames(count: step - 1, beforePictureID: pictureID))
    }

    /// Appends a fragment to the frame buffer, growing it if needed; false when the
    /// frame would exceed `maximumFrameSize`.
    private func append(_ fragment: UnsafeRawBufferPointer) -> Bool {
        let needed = length + fragment.count
        guard needed <= maximumFrameSize else { return false }
        if needed > capacity {
            var newCapacity = capacity
            while newCapacity < needed { newCapacity = min(maximumFrameSize, newCapacity * 2) }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
            grown.copyMemory(from: buffer, byteCount: length)
            buffer.deallocate()
            buffer = grown
            capacity = newCapacity
        }
        if let source = fragment.baseAddress, fragment.count > 0 {
            (buffer + length).copyMemory(from: source, byteCount: fragment.count)
        }
        length = needed
        return true
    }
}
