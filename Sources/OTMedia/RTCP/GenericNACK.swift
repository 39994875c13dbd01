/// Generic NACK, RFC 4585 section 6.2.1: "these RTP packets never arrived, resend them".
/// RTPFB (PT 205) with FMT 1; the FCI is a list of PID + BLP pairs.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |V=2|P|  FMT=1  |    PT=205     |          length               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of packet sender                        |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                  SSRC of media source                         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |            PID                |             BLP               |  (repeated)
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Pairs are a view (parse) or the caller's buffer (write). Cost: O(1), no allocation.
public struct GenericNACK: RTCPPacketWriting, Equatable {
    /// FMT 1 in an RTPFB packet.
    public static let format: UInt8 = 1

    /// Who asks.
    public var senderSSRC: UInt32
    /// The stream whose packets were lost.
    public var mediaSSRC: UInt32
    /// The lost packets, 17 sequence numbers per pair at most.
    public var pairs: RTCPList<NACKPair>

    /// Builds a NACK. `pairs` must outlive the value; `NACKPair.build` fills them.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: RTCPList<NACKPair>) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Parses one generic NACK at the start of `bytes`. Never traps.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (sender, media, fci) = try FeedbackHeader.parse(bytes, type: .transportFeedback, format: Self.format)
        senderSSRC = sender
        mediaSSRC = media
        let count = fci.count / NACKPair.wireSize
        pairs = RTCPList(wire: fci.view(from: 0, count: count * NACKPair.wireSize), count: count)
    }

    /// Every lost sequence number, pair by pair, in packet order (no allocation).
    public var lostSequenceNumbers: LostSequenceNumbers { LostSequenceNumbers(pairs: pairs) }

    /// `.transportFeedback`.
    public var packetType: RTCPPacketType { .transportFeedback }
    /// 12 + 4 per pair.
    public var size: Int { FeedbackHeader.size + pairs.wireSize }

    /// Writes the NACK at the start of `buffer`; returns `size`.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let size = self.size
        try FeedbackHeader.write(type: .transportFeedback, format: Self.format, sender: senderSSRC, media: mediaSSRC,
                                 size: size, into: buffer)
        pairs.write(wire: buffer, at: FeedbackHeader.size)
        return size
    }

    /// The lost sequence numbers of all pairs, flattened.
    public struct LostSequenceNumbers: Sequence {
        let pairs: RTCPList<NACKPair>

        /// Walks pair by pair.
        public struct Iterator: IteratorProtocol {
            let pairs: RTCPList<NACKPair>
            var index = 0
            var current: NACKPair.Iterator?

            /// The next lost sequence number, or nil.
            public mutating func next() -> UInt16? {
                while true {
                    if let number = current?.next() { return number }
                    guard index < pairs.count else { return nil }
                    current = pairs[index].makeIterator()
                    index += 1
                }
            }
        }

        /// Iterates the numbers.
        public func makeIterator() -> Iterator { Iterator(pairs: pairs) }
    }
}
