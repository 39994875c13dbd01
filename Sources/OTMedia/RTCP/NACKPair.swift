/// One NACK FCI entry, RFC 4585 section 6.2.1: a lost packet ID (PID) and a bitmask of
/// the 16 packets after it (BLP; bit i set means PID + i + 1 is lost too). Sequence
/// numbers wrap at 65536.
///
/// The pair is itself a sequence of the lost numbers it stands for (no allocation).
public struct NACKPair: RTCPListItem, Hashable, Sequence {
    /// 4.
    public static let wireSize = 4

    /// The first lost sequence number.
    public var packetID: UInt16
    /// Bitmask of following lost packets: bit 0 (least significant) is PID + 1.
    public var lostBitmask: UInt16

    /// Builds a pair.
    public init(packetID: UInt16, lostBitmask: UInt16 = 0) {
        self.packetID = packetID
        self.lostBitmask = lostBitmask
    }

    /// Decodes a pair at `offset`.
    public init(wire bytes: UnsafeRawBufferPointer, at offset: Int) {
        packetID = bytes.be16(offset)
        lostBitmask = bytes.be16(offset + 2)
    }

    /// Encodes a pair at `offset`.
    public func write(wire bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes.storeBE16(packetID, at: offset)
        bytes.storeBE16(lostBitmask, at: offset + 2)
    }

    /// Walks PID then each set bit of BLP.
    public struct Iterator: IteratorProtocol {
        let pair: NACKPair
        var bit = -1

        /// The next lost sequence number, or nil.
        public mutating func next() -> UInt16? {
            if bit < 0 {
                bit = 0
                return pair.packetID
            }
            while bit < 16 {
                let current = bit
                bit += 1
                if pair.lostBitmask & (1 << current) != 0 { return pair.packetID &+ UInt16(current + 1) }
            }
            return nil
        }
    }

    /// Iterates the lost numbers this pair stands for: PID, then PID+i+1 for each set bit.
    public func makeIterator() -> Iterator { Iterator(pair: self) }

    /// How many lost numbers `build` consumed and how many pairs it wrote.
    public struct BuildResult: Equatable, Sendable {
        /// Pairs written to the output.
        public var pairs: Int
        /// Lost sequence numbers covered by those pairs (the rest did not fit).
        public var consumed: Int
    }

    /// Packs lost sequence numbers into as few pairs as a greedy pass allows.
    ///
    /// `lost` must be in ascending order modulo 2^16 (as a receiver detects gaps, so
    /// 65534, 65535, 0, 1 is ascending); a number equal to or behind the current pair's
    /// PID is a duplicate and skipped. A number within 16 of the current PID sets a BLP
    /// bit; anything further starts a new pair. Stops when `output` is full and reports how
    /// much of `lost` it covered. Cost: O(lost.count), no allocation.
    public static func build(lost: UnsafeBufferPointer<UInt16>, into output: UnsafeMutableBufferPointer<NACKPair>) -> BuildResult {
        var written = 0
        var consumed = 0
        for number in lost {
            if written > 0 {
                let distance = number &- output[written - 1].packetID
                if distance == 0 || distance >= 0x8000 {  // duplicate or behind: already asked for
                    consumed += 1
                    continue
                }
                if distance <= 16 {
                    output[written - 1].lostBitmask |= 1 << (distance - 1)
                    consumed += 1
                    continue
                }
            }
            guard written < output.count else { break }
            output[written] = NACKPair(packetID: number)
            written += 1
            consumed += 1
        }
        return BuildResult(pairs: written, consumed: consumed)
    }
}
