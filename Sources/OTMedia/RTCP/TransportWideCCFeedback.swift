/// Transport-wide congestion control feedback (TWCC),
/// draft-holmer-rmcat-transport-wide-cc-extensions-01 section 3.1: when each
/// transport-sequence-numbered packet arrived, the feedback browsers send for
/// send-side bandwidth estimation. RTPFB (PT 205) with FMT 15.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=15 |    PT=205     |           length              |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                     SSRC of packet sender                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                      SSRC of media source                     |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |      base sequence number     |      packet status count      |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                 reference time                | fb pkt. count |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |          packet chunk         |         packet chunk          |
/// .                                                               .
/// |         packet chunk          |  recv delta   |  recv delta   |
/// .                                                               .
/// |           recv delta          |  recv delta   | zero padding  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// The reference time counts 64 ms units (24 bits, wrapping every 2^24 × 64 ms ≈ 12.4
/// days; the reader unwraps); receive deltas count 250 µs units, small ones unsigned in
/// one byte, large or negative ones signed in two. Parsing walks every chunk once to check
/// that chunks and deltas fit; `packets` then decodes statuses lazily. Cost: parse
/// O(chunks), iteration O(1) per packet, no allocation. `TransportWideCCBuilder` writes
/// new feedback.
public struct TransportWideCCFeedback: RTCPPacketWriting, Equatable {
    /// FMT 15 in an RTPFB packet.
    public static let format: UInt8 = 15
    /// One receive-delta tick: 250 µs.
    public static let deltaTickMicroseconds: Int64 = 250
    /// One reference-time unit: 64 ms.
    public static let referenceTimeUnitMicroseconds: Int64 = 64_000

    static let baseSequenceOffset = 0
    static let statusCountOffset = 2
    static let referenceTimeOffset = 4
    static let feedbackCountOffset = 7
    static let fixedFCISize = 8
    /// Header, SSRCs and the fixed FCI fields.
    static let fixedSize = FeedbackHeader.size + fixedFCISize

    /// Who sends the feedback.
    public var senderSSRC: UInt32
    /// The media source (browsers put one of the streams here; it carries no meaning).
    public var mediaSSRC: UInt32
    /// Transport sequence number of the first packet described.
    public var baseSequenceNumber: UInt16
    /// Packets described, received or not.
    public var packetStatusCount: UInt16
    /// Reference time in 64 ms units (24 bits).
    public var referenceTime: UInt32
    /// Feedback packet counter (wraps at 256), to detect lost feedback.
    public var feedbackPacketCount: UInt8
    /// The chunk bytes (a view, validated).
    let chunks: UnsafeRawBufferPointer
    /// The receive-delta bytes (a view, validated).
    let deltas: UnsafeRawBufferPointer

    /// Parses one TWCC feedback at the start of `bytes`: checks that the chunks cover
    /// `packetStatusCount` statuses with no reserved symbol or empty run, and that the
    /// deltas they call for fit. Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (sender, media, fci) = try FeedbackHeader.parse(bytes, type: .transportFeedback, format: Self.format)
        guard fci.count >= Self.fixedFCISize else {
            throw .truncated(needed: Self.fixedSize, available: FeedbackHeader.size + fci.count)
        }
        senderSSRC = sender
        mediaSSRC = media
        baseSequenceNumber = fci.be16(Self.baseSequenceOffset)
        packetStatusCount = fci.be16(Self.statusCountOffset)
        referenceTime = fci.be24(Self.referenceTimeOffset)
        feedbackPacketCount = fci[Self.feedbackCountOffset]

        var offset = Self.fixedFCISize
        var remaining = Int(packetStatusCount)
        var deltaBytes = 0
        while remaining > 0 {
            guard offset + 2 <= fci.count else { throw .malformed(.twccChunkOverrun) }
            let (covered, bytes) = try TWCCChunk.validate(fci.be16(offset), remaining: remaining)
            offset += 2
            remaining -= covered
            deltaBytes += bytes
        }
        guard offset + deltaBytes <= fci.count else { throw .malformed(.twccDeltaOverrun) }
        chunks = fci.view(from: Self.fixedFCISize, count: offset - Self.fixedFCISize)
        deltas = fci.view(from: offset, count: deltaBytes)
    }

    /// The reference time in microseconds of the sender's time base.
    public var referenceTimeMicroseconds: Int64 { Int64(referenceTime) * Self.referenceTimeUnitMicroseconds }

    /// Every described packet in sequence order, decoded lazily (no allocation).
    public var packets: Packets { Packets(feedback: self) }

    /// Decodes statuses in order into the caller's buffer, up to its capacity; returns how
    /// many it wrote (`min(packetStatusCount, output.count)`). Cost: O(n), no allocation.
    public func decode(into output: UnsafeMutableBufferPointer<TWCCPacketStatus>) -> Int {
        var written = 0
        var iterator = packets.makeIterator()
        while written < output.count, let status = iterator.next() {
            output[written] = status
            written += 1
        }
        return written
    }

    /// `.transportFeedback`.
    public var packetType: RTCPPacketType { .transportFeedback }

    /// 20 + chunks + deltas, rounded up to a word.
    public var size: Int { (Self.fixedSize + chunks.count + deltas.count + 3) & ~3 }

    /// Writes the feedback back (same chunks and deltas, zero padding); returns `size`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let size = self.size
        try FeedbackHeader.write(type: .transportFeedback, format: Self.format, sender: senderSSRC, media: mediaSSRC,
                                 size: size, into: buffer)
        Self.writeFixedFields(into: buffer, base: baseSequenceNumber, count: packetStatusCount,
                              referenceTime: referenceTime, feedbackCount: feedbackPacketCount)
        buffer.copy(chunks, to: Self.fixedSize)
        buffer.copy(deltas, to: Self.fixedSize + chunks.count)
        let end = Self.fixedSize + chunks.count + deltas.count
        buffer.zero(at: end, count: size - end)
        return size
    }

    static func writeFixedFields(into buffer: UnsafeMutableRawBufferPointer, base: UInt16, count: UInt16,
                                 referenceTime: UInt32, feedbackCount: UInt8) {
        let fci = FeedbackHeader.size
        buffer.storeBE16(base, at: fci + baseSequenceOffset)
        buffer.storeBE16(count, at: fci + statusCountOffset)
        buffer.storeBE24(referenceTime, at: fci + referenceTimeOffset)
        buffer[fci + feedbackCountOffset] = feedbackCount
    }

    /// Same fields, same chunk and delta bytes.
    public static func == (lhs: TransportWideCCFeedback, rhs: TransportWideCCFeedback) -> Bool {
        lhs.senderSSRC == rhs.senderSSRC && lhs.mediaSSRC == rhs.mediaSSRC
            && lhs.baseSequenceNumber == rhs.baseSequenceNumber && lhs.packetStatusCount == rhs.packetStatusCount
            && lhs.referenceTime == rhs.referenceTime && lhs.feedbackPacketCount == rhs.feedbackPacketCount
            && RTCPWire.equal(lhs.chunks, rhs.chunks) && RTCPWire.equal(lhs.deltas, rhs.deltas)
    }

    /// The described packets, as a sequence.
    public struct Packets: Sequence {
        let feedback: TransportWideCCFeedback

        /// Packets described (`packetStatusCount`).
        public var count: Int { Int(feedback.packetStatusCount) }

        /// Walks chunks and deltas together.
        public struct Iterator: IteratorProtocol {
            let chunks: UnsafeRawBufferPointer
            let deltas: UnsafeRawBufferPointer
            var remaining: Int
            var sequenceNumber: UInt16
            var chunkOffset = 0
            var chunk: UInt16 = 0
            var position = 0
            var capacity = 0
            var deltaOffset = 0
            var arrivalTicks: Int64

            init(_ feedback: TransportWideCCFeedback) {
                chunks = feedback.chunks
                deltas = feedback.deltas
                remaining = Int(feedback.packetStatusCount)
                sequenceNumber = feedback.baseSequenceNumber
                arrivalTicks = Int64(feedback.referenceTime) * (TransportWideCCFeedback.referenceTimeUnitMicroseconds
                    / TransportWideCCFeedback.deltaTickMicroseconds)
            }

            /// The next packet's status, or nil after the last.
            public mutating func next() -> TWCCPacketStatus? {
                guard remaining > 0 else { return nil }
                while position >= capacity {
                    guard chunkOffset + 2 <= chunks.count else { remaining = 0; return nil }
                    chunk = chunks.be16(chunkOffset)
                    chunkOffset += 2
                    capacity = TWCCChunk.capacity(chunk)
                    position = 0
                }
                let symbol = TWCCChunk.symbol(chunk, position)
                position += 1
                remaining -= 1
                var delta: Int16 = 0
                switch symbol {
                case TWCCChunk.smallDelta:
                    guard deltaOffset + 1 <= deltas.count else { remaining = 0; return nil }
                    delta = Int16(deltas[deltaOffset])
                    deltaOffset += 1
                case TWCCChunk.largeDelta:
                    guard deltaOffset + 2 <= deltas.count else { remaining = 0; return nil }
                    delta = Int16(bitPattern: deltas.be16(deltaOffset))
                    deltaOffset += 2
                default:
                    break
                }
                arrivalTicks += Int64(delta)
                let status = TWCCPacketStatus(sequenceNumber: sequenceNumber,
                                              symbol: TWCCPacketStatus.Symbol(rawValue: symbol) ?? .notReceived,
                                              deltaTicks: delta, arrivalTicks: arrivalTicks)
                sequenceNumber &+= 1
                return status
            }
        }

        /// Iterates the statuses.
        public func makeIterator() -> Iterator { Iterator(feedback) }
    }
}

/// What TWCC feedback says about one transport sequence number.
public struct TWCCPacketStatus: Hashable, Sendable {
    /// The status symbol on the wire.
    public enum Symbol: UInt8, Sendable {
        /// 00: the packet did not arrive (yet).
        case notReceived = 0
        /// 01: arrived, delta in 0...63.75 ms (one byte).
        case smallDelta = 1
        /// 10: arrived, delta larger or negative (two bytes, signed).
        case largeDelta = 2
    }

    /// The transport-wide sequence number.
    public var sequenceNumber: UInt16
    /// The symbol.
    public var symbol: Symbol
    /// Receive delta in 250 µs ticks from the previous received packet (the first from the
    /// reference time); 0 when not received.
    public var deltaTicks: Int16
    /// Running arrival time in 250 µs ticks of the sender's time base (reference time plus
    /// all deltas so far); for a lost packet, the last received packet's.
    public var arrivalTicks: Int64

    /// Whether the packet arrived.
    public var isReceived: Bool { symbol != .notReceived }
    /// `deltaTicks` in microseconds.
    public var deltaMicroseconds: Int64 { Int64(deltaTicks) * TransportWideCCFeedback.deltaTickMicroseconds }
    /// `arrivalTicks` in microseconds.
    public var arrivalMicroseconds: Int64 { arrivalTicks * TransportWideCCFeedback.deltaTickMicroseconds }

    /// Builds a status.
    public init(sequenceNumber: UInt16, symbol: Symbol, deltaTicks: Int16, arrivalTicks: Int64) {
        self.sequenceNumber = sequenceNumber
        self.symbol = symbol
        self.deltaTicks = deltaTicks
        self.arrivalTicks = arrivalTicks
    }
}
