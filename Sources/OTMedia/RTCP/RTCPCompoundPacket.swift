/// A compound RTCP datagram (RFC 3550 section 6.1): RTCP packets back to back, each with
/// its own header, validated as a whole before any packet is read.
///
/// Validation (after RFC 3550 appendix A.2): every header has version 2; every length
/// stays inside the datagram and the lengths add up exactly to its size; only the last
/// packet may have the padding bit, with a non-zero padding count inside that packet (any
/// count, not only multiples of 4: libwebrtc pads TWCC feedback by 1–3 bytes). A datagram that fails is dropped whole. The first packet is not
/// required to be SR/RR, so reduced-size feedback (RFC 5506) is accepted;
/// `isReducedSize` tells which it was.
///
/// Iterating decodes each packet by type (`RTCPPacket`); unknown types come back as
/// `.unknown` and the iterator counts them. Cost: validation O(packets); no allocation;
/// views point into the datagram, which must outlive them.
public struct RTCPCompoundPacket: Sequence {
    /// The whole datagram.
    public let bytes: UnsafeRawBufferPointer
    /// RTCP packets in the datagram.
    public let packetCount: Int

    /// Validates the framing of `bytes`. Throws on an empty datagram, a bad version, a
    /// length that overruns or leaves trailing bytes, or padding on a packet that is not last.
    public init(validating bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        guard !bytes.isEmpty else { throw .malformed(.emptyCompound) }
        var offset = 0
        var count = 0
        while offset < bytes.count {
            let rest = bytes.view(from: offset, count: bytes.count - offset)
            let (header, _) = try RTCPHeader.split(rest)
            let size = header.packetSize
            if header.padding && offset + size != bytes.count { throw .invalidPadding }
            offset += size
            count += 1
        }
        self.bytes = bytes
        packetCount = count
    }

    /// True when the first packet is neither SR nor RR (RFC 5506 reduced-size RTCP).
    public var isReducedSize: Bool {
        let type = RTCPPacketType(rawValue: bytes[1])
        return type != .senderReport && type != .receiverReport
    }

    /// Walks the packets.
    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        var offset = 0
        /// Packets of types OTKit does not read, skipped so far.
        public private(set) var unknownCount = 0
        /// Packets of known types that did not parse, so far.
        public private(set) var malformedCount = 0

        /// The next packet, decoded, or nil at the end.
        public mutating func next() -> RTCPPacket? {
            guard offset + RTCPHeader.size <= bytes.count else { return nil }
            let size = (Int(bytes.be16(offset + 2)) + 1) * 4
            guard offset + size <= bytes.count else { return nil }
            let packet = RTCPPacket(parsing: bytes.view(from: offset, count: size))
            offset += size
            switch packet {
            case .unknown: unknownCount += 1
            case .malformed: malformedCount += 1
            default: break
            }
            return packet
        }
    }

    /// Iterates the packets in order.
    public func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    /// The raw bytes of each packet in order (header included), without decoding.
    public var rawPackets: RawPackets { RawPackets(bytes: bytes) }

    /// Packets as raw byte views.
    public struct RawPackets: Sequence {
        let bytes: UnsafeRawBufferPointer

        /// Walks the packet boundaries.
        public struct Iterator: IteratorProtocol {
            let bytes: UnsafeRawBufferPointer
            var offset = 0

            /// The next packet's bytes, or nil.
            public mutating func next() -> UnsafeRawBufferPointer? {
                guard offset + RTCPHeader.size <= bytes.count else { return nil }
                let size = (Int(bytes.be16(offset + 2)) + 1) * 4
                guard offset + size <= bytes.count else { return nil }
                defer { offset += size }
                return bytes.view(from: offset, count: size)
            }
        }

        /// Iterates the packets' bytes.
        public func makeIterator() -> Iterator { Iterator(bytes: bytes) }
    }
}
