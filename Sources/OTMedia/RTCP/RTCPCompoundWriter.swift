/// Writes a compound RTCP datagram into a caller's buffer, in the order RFC 3550 section
/// 6.1 requires: SR or RR first (more RRs may follow it), then SDES with the CNAME, then
/// feedback and other packets, BYE last.
///
/// With `reducedSize` (RFC 5506) the report and SDES may be left out, e.g. a lone NACK
/// or PLI; the order rule still holds for what is written. Cost: each append copies the
/// packet into the buffer; no allocation.
public struct RTCPCompoundWriter {
    enum Stage: Int, Comparable {
        case start, reports, description, feedback, goodbye
        static func < (lhs: Stage, rhs: Stage) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    let buffer: UnsafeMutableRawBufferPointer
    /// Whether RFC 5506 reduced-size RTCP is allowed.
    public let reducedSize: Bool
    /// Bytes written so far.
    public private(set) var count = 0
    var stage = Stage.start
    var hasCNAME = false

    /// A writer over `buffer` (typically a pooled MTU-sized packet buffer).
    public init(buffer: UnsafeMutableRawBufferPointer, reducedSize: Bool = false) {
        self.buffer = buffer
        self.reducedSize = reducedSize
    }

    /// Appends `packet`. Throws `.malformed(.compoundOrder)` if it would break the order
    /// (a full compound must start with SR/RR; nothing follows BYE) and `.bufferTooSmall`
    /// if it does not fit; the writer is unchanged when it throws.
    public mutating func append(_ packet: some RTCPPacketWriting) throws(RTCPError) {
        let next: Stage
        switch packet.packetType {
        case .senderReport, .receiverReport: next = .reports
        case .sourceDescription: next = .description
        case .goodbye: next = .goodbye
        default: next = .feedback
        }
        if stage == .goodbye { throw .malformed(.compoundOrder) }
        if next < stage { throw .malformed(.compoundOrder) }
        if stage == .start && next != .reports && !reducedSize { throw .malformed(.compoundOrder) }
        if next == .reports && stage == .reports && packet.packetType == .senderReport { throw .malformed(.compoundOrder) }
        let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[count...])
        let written = try packet.write(into: rest)
        count += written
        stage = next
        if next == .description { hasCNAME = true }
    }

    /// The datagram so far. For a full (not reduced-size) compound, throws
    /// `.malformed(.compoundWithoutCNAME)` unless an SDES was appended and
    /// `.malformed(.emptyCompound)` if nothing was.
    public func finish() throws(RTCPError) -> UnsafeRawBufferPointer {
        guard count > 0 else { throw .malformed(.emptyCompound) }
        if !reducedSize && !hasCNAME { throw .malformed(.compoundWithoutCNAME) }
        return UnsafeRawBufferPointer(rebasing: buffer[0 ..< count])
    }
}
