/// A packet received with a transport-wide sequence number, as the TWCC builder needs it.
public struct TWCCReceivedPacket: Hashable, Sendable {
    /// The transport-wide sequence number from the RTP header extension.
    public var sequenceNumber: UInt16
    /// When it arrived, in nanoseconds of the receiver's monotonic clock.
    public var arrivalNanoseconds: UInt64

    /// Builds a record.
    public init(sequenceNumber: UInt16, arrivalNanoseconds: UInt64) {
        self.sequenceNumber = sequenceNumber
        self.arrivalNanoseconds = arrivalNanoseconds
    }
}

/// Writes TWCC feedback (see `TransportWideCCFeedback` for the format) from the caller's
/// records of received packets.
///
/// Records must be in ascending transport sequence order (modulo 2^16); gaps become
/// "not received" statuses; a record equal to or behind the previous one is skipped. The
/// reference time is the first arrival in 64 ms units; deltas are the differences of the
/// arrivals floored to 250 µs ticks, so the reader's running sum is exact. The builder
/// covers as many records as fit in `maxSize` bytes, 65535 statuses and a representable
/// delta (±8.19 s); `consumed` says how many, and the caller sends the rest in the next
/// feedback. Cost: init and write each walk the records once; no allocation.
public struct TransportWideCCBuilder: RTCPPacketWriting {
    /// Ticks per reference-time unit: 64 ms / 250 µs.
    static let ticksPerReferenceUnit: Int64 = 256
    static let nanosecondsPerTick: UInt64 = 250_000
    static let nanosecondsPerReferenceUnit: UInt64 = 64_000_000

    /// Who sends the feedback.
    public let senderSSRC: UInt32
    /// The media source field.
    public let mediaSSRC: UInt32
    /// The feedback packet counter to write.
    public let feedbackPacketCount: UInt8
    let records: UnsafeBufferPointer<TWCCReceivedPacket>

    /// Records (from the start of the input) the packet covers.
    public let consumed: Int
    /// Statuses written (received and lost).
    public let packetStatusCount: Int
    /// Reference time written, 64 ms units (24 bits).
    public let referenceTime: UInt32
    let chunkCount: Int
    let deltaBytes: Int

    /// Plans feedback for `records` (which must outlive the builder) within `maxSize`
    /// bytes (at least 24). Throws `.malformed(.noRecords)` for an empty input and
    /// `.bufferTooSmall` if `maxSize` cannot hold even one status.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, feedbackPacketCount: UInt8,
                records: UnsafeBufferPointer<TWCCReceivedPacket>, maxSize: Int = 1200) throws(RTCPError) {
        guard let first = records.first else { throw .malformed(.noRecords) }
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.feedbackPacketCount = feedbackPacketCount
        self.records = records
        let referenceUnits = first.arrivalNanoseconds / Self.nanosecondsPerReferenceUnit
        referenceTime = UInt32(truncatingIfNeeded: referenceUnits) & 0xFF_FFFF

        var encoder = TWCCChunkEncoder()
        var chunks = 0
        var deltaBytes = 0
        var statuses = 0
        var consumed = 0
        var walker = Walker(referenceUnits: referenceUnits)
        for record in records {
            guard let step = walker.peek(record) else { break }
            if step.skip {
                consumed += 1
                continue
            }
            guard statuses + step.missing + 1 <= Int(UInt16.max) else { break }
            var trial = encoder
            var trialChunks = chunks
            for _ in 0 ..< step.missing {
                if trial.add(TWCCChunk.notReceived) != nil { trialChunks += 1 }
            }
            if trial.add(step.symbol) != nil { trialChunks += 1 }
            let trialDeltas = deltaBytes + TWCCChunk.deltaSize(step.symbol)
            let total = (TransportWideCCFeedback.fixedSize + 2 * (trialChunks + trial.pendingChunks) + trialDeltas + 3) & ~3
            guard total <= maxSize else { break }
            encoder = trial
            chunks = trialChunks
            deltaBytes = trialDeltas
            statuses += step.missing + 1
            consumed += 1
            walker.commit(record, step)
        }
        guard statuses > 0 else {
            throw .bufferTooSmall(needed: TransportWideCCFeedback.fixedSize + 4, available: maxSize)
        }
        self.consumed = consumed
        packetStatusCount = statuses
        chunkCount = chunks + encoder.pendingChunks
        self.deltaBytes = deltaBytes
    }

    /// `.transportFeedback`.
    public var packetType: RTCPPacketType { .transportFeedback }

    /// 20 + 2 per chunk + deltas, rounded up to a word; at most `maxSize`.
    public var size: Int { (TransportWideCCFeedback.fixedSize + 2 * chunkCount + deltaBytes + 3) & ~3 }

    /// Writes the planned feedback at the start of `buffer`; returns `size`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let size = self.size
        try FeedbackHeader.write(type: .transportFeedback, format: TransportWideCCFeedback.format,
                                 sender: senderSSRC, media: mediaSSRC, size: size, into: buffer)
        TransportWideCCFeedback.writeFixedFields(into: buffer, base: records[0].sequenceNumber,
                                                 count: UInt16(packetStatusCount), referenceTime: referenceTime,
                                                 feedbackCount: feedbackPacketCount)
        var chunkOffset = TransportWideCCFeedback.fixedSize
        var deltaOffset = chunkOffset + 2 * chunkCount
        var encoder = TWCCChunkEncoder()
        var walker = Walker(referenceUnits: records[0].arrivalNanoseconds / Self.nanosecondsPerReferenceUnit)
        for record in records[0 ..< consumed] {
            guard let step = walker.peek(record) else { break }
            if step.skip { continue }
            for _ in 0 ..< step.missing {
                if let chunk = encoder.add(TWCCChunk.notReceived) {
                    buffer.storeBE16(chunk, at: chunkOffset)
                    chunkOffset += 2
                }
            }
            if let chunk = encoder.add(step.symbol) {
                buffer.storeBE16(chunk, at: chunkOffset)
                chunkOffset += 2
            }
            if step.symbol == TWCCChunk.smallDelta {
                buffer[deltaOffset] = UInt8(step.delta)
                deltaOffset += 1
            } else {
                buffer.storeBE16(UInt16(bitPattern: Int16(step.delta)), at: deltaOffset)
                deltaOffset += 2
            }
            walker.commit(record, step)
        }
        while let chunk = encoder.flush() {
            buffer.storeBE16(chunk, at: chunkOffset)
            chunkOffset += 2
        }
        buffer.zero(at: deltaOffset, count: size - deltaOffset)
        return size
    }

    /// Turns records into (missing count, symbol, delta) steps; shared by plan and write so
    /// both see the same packet.
    struct Walker {
        var previousTicks: Int64
        var previousSequence: UInt16 = 0
        var started = false

        struct Step {
            var skip = false
            var missing = 0
            var symbol: UInt8 = TWCCChunk.smallDelta
            var delta: Int64 = 0
            var ticks: Int64 = 0
        }

        init(referenceUnits: UInt64) {
            previousTicks = Int64(truncatingIfNeeded: referenceUnits) * TransportWideCCBuilder.ticksPerReferenceUnit
        }

        /// The step for `record`, or nil if its delta cannot be written (feedback ends).
        func peek(_ record: TWCCReceivedPacket) -> Step? {
            var step = Step()
            if started {
                let distance = record.sequenceNumber &- previousSequence
                if distance == 0 || distance >= 0x8000 {
                    step.skip = true
                    return step
                }
                step.missing = Int(distance) - 1
            }
            step.ticks = Int64(truncatingIfNeeded: record.arrivalNanoseconds / TransportWideCCBuilder.nanosecondsPerTick)
            step.delta = step.ticks - previousTicks
            if (0 ... 255).contains(step.delta) {
                step.symbol = TWCCChunk.smallDelta
            } else if (Int64(Int16.min) ... Int64(Int16.max)).contains(step.delta) {
                step.symbol = TWCCChunk.largeDelta
            } else {
                return nil
            }
            return step
        }

        mutating func commit(_ record: TWCCReceivedPacket, _ step: Step) {
            guard !step.skip else { return }
            previousTicks = step.ticks
            previousSequence = record.sequenceNumber
            started = true
        }
    }
}
