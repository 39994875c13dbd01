/// A source description (SDES), RFC 3550 section 6.5: per-source items, above all the
/// CNAME that ties a participant's audio and video SSRCs together.
///
/// ```
///         0                   1                   2                   3
///         0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///        +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// header |V=2|P|    SC   |  PT=SDES=202  |             length            |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
/// chunk  |                          SSRC/CSRC_1                          |
///   1    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///        |                           SDES items                          |
///        |                              ...                              |
///        +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///
/// item (RFC 3550 6.5.1):
///  |    CNAME=1    |     length    | user and domain name        ...
/// ```
/// Each chunk's item list ends with one or more zero octets up to the next 32-bit
/// boundary. Parsing validates every chunk and item, then exposes them lazily through
/// `chunks`; writing copies parsed chunks verbatim or writes one chunk with a CNAME.
/// Cost: parse O(bytes), no allocation.
public struct SourceDescription: RTCPPacketWriting, Equatable {
    enum Storage {
        /// Validated chunk bytes and the chunk count.
        case wire(UnsafeRawBufferPointer, count: Int)
        /// One chunk: an SSRC and its CNAME bytes.
        case cname(UInt32, UnsafeRawBufferPointer)
    }

    let storage: Storage

    /// The largest item value (its length is one byte).
    public static let maxItemLength = 255

    /// One chunk carrying `cname` for `ssrc`. `cname` (UTF-8 bytes, at most 255) is a view
    /// the caller keeps alive, typically for the life of the stream.
    public init(ssrc: UInt32, cname: UnsafeRawBufferPointer) {
        storage = .cname(ssrc, cname)
    }

    /// Parses one SDES packet at the start of `bytes`: walks every chunk and item and
    /// checks that none runs past the end and that nothing follows the last chunk.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.split(bytes, type: .sourceDescription)
        var offset = 0
        for _ in 0 ..< Int(header.count) {
            offset = try Self.validateChunk(body, at: offset)
        }
        guard offset == body.count else { throw .malformed(.sdesTrailingBytes) }
        storage = .wire(body, count: Int(header.count))
    }

    /// Checks the chunk at `start` and returns the offset of the next one.
    static func validateChunk(_ body: UnsafeRawBufferPointer, at start: Int) throws(RTCPError) -> Int {
        guard body.count - start >= 4 else { throw .truncated(needed: start + 4, available: body.count) }
        var offset = start + 4
        while true {
            guard offset < body.count else { throw .malformed(.sdesItemOverrun) }
            if body[offset] == SDESItemType.end.rawValue {
                // The terminator and the padding up to the next word boundary (chunks start aligned).
                let next = (offset + 4) & ~3
                guard next <= body.count else { throw .malformed(.sdesItemOverrun) }
                return next
            }
            guard offset + 2 <= body.count else { throw .malformed(.sdesItemOverrun) }
            let end = offset + 2 + Int(body[offset + 1])
            guard end <= body.count else { throw .malformed(.sdesItemOverrun) }
            offset = end
        }
    }

    /// The chunks, decoded lazily (a parsed packet) or the single CNAME chunk (a built one).
    public var chunks: SDESChunks { SDESChunks(storage: storage) }

    /// The first CNAME in the packet, as a view, or nil.
    public var firstCNAME: UnsafeRawBufferPointer? {
        for chunk in chunks { if let cname = chunk.cname { return cname } }
        return nil
    }

    /// `.sourceDescription`.
    public var packetType: RTCPPacketType { .sourceDescription }

    var bodySize: Int {
        switch storage {
        case let .wire(bytes, _): return bytes.count
        case let .cname(_, cname): return (4 + 2 + cname.count + 1 + 3) & ~3
        }
    }

    /// Header plus chunks; a CNAME chunk is 4 + 2 + length, plus 1–4 zero bytes to the word.
    public var size: Int { RTCPHeader.size + bodySize }

    /// Writes the SDES at the start of `buffer`; returns `size`. Throws if the CNAME is
    /// longer than 255 bytes, there are more than 31 chunks or the buffer is short.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPError) -> Int {
        let size = self.size
        try RTCPHeader.checkSize(size)
        switch storage {
        case let .wire(bytes, count):
            guard count <= RTCPHeader.maxCount else { throw .tooManyItems(count: count, limit: RTCPHeader.maxCount) }
            try RTCPWire.require(buffer, size)
            RTCPHeader.write(count: count, packetType: .sourceDescription, size: size, into: buffer)
            buffer.copy(bytes, to: RTCPHeader.size)
        case let .cname(ssrc, cname):
            guard cname.count <= Self.maxItemLength else { throw .malformed(.cnameTooLong) }
            try RTCPWire.require(buffer, size)
            RTCPHeader.write(count: 1, packetType: .sourceDescription, size: size, into: buffer)
            var offset = RTCPHeader.size
            buffer.storeBE32(ssrc, at: offset)
            buffer[offset + 4] = SDESItemType.cname.rawValue
            buffer[offset + 5] = UInt8(cname.count)
            buffer.copy(cname, to: offset + 6)
            offset += 6 + cname.count
            buffer.zero(at: offset, count: size - offset)
        }
        return size
    }

    /// Same chunks with the same items in the same order.
    public static func == (lhs: SourceDescription, rhs: SourceDescription) -> Bool {
        lhs.chunks.elementsEqual(rhs.chunks)
    }
}

/// An SDES item type (RFC 3550 section 6.5): CNAME = 1, NAME = 2, … PRIV = 8; 0 ends a chunk.
public struct SDESItemType: RawRepresentable, Hashable, Sendable {
    /// The type byte.
    public var rawValue: UInt8
    /// Wraps a type byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// END: terminates a chunk's item list.
    public static let end = SDESItemType(rawValue: 0)
    /// CNAME: canonical end-point identifier (RFC 3550 6.5.1).
    public static let cname = SDESItemType(rawValue: 1)
    /// NAME: user name.
    public static let name = SDESItemType(rawValue: 2)
    /// TOOL: application or tool name.
    public static let tool = SDESItemType(rawValue: 6)
}

/// One SDES item: a type and a view of its value bytes.
public struct SDESItem: Equatable {
    /// The item type.
    public var type: SDESItemType
    /// The value bytes (a view into the packet).
    public var value: UnsafeRawBufferPointer

    /// Same type and same value bytes.
    public static func == (lhs: SDESItem, rhs: SDESItem) -> Bool {
        lhs.type == rhs.type && RTCPWire.equal(lhs.value, rhs.value)
    }
}

/// One SDES chunk: an SSRC/CSRC and its items, iterated lazily.
public struct SDESChunk: Sequence, Equatable {
    /// The source this chunk describes.
    public let ssrc: UInt32
    let items: UnsafeRawBufferPointer
    let cnameOnly: Bool

    /// The value of the first CNAME item, or nil.
    public var cname: UnsafeRawBufferPointer? {
        for item in self where item.type == .cname { return item.value }
        return nil
    }

    /// Walks the items (validated at parse time) up to the terminator. No allocation.
    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        let cnameOnly: Bool
        var offset = 0
        var done = false

        /// The next item, or nil at the terminator.
        public mutating func next() -> SDESItem? {
            if cnameOnly {
                guard !done else { return nil }
                done = true
                return SDESItem(type: .cname, value: bytes)
            }
            guard offset + 2 <= bytes.count, bytes[offset] != SDESItemType.end.rawValue else { return nil }
            let length = Int(bytes[offset + 1])
            guard offset + 2 + length <= bytes.count else { return nil }
            let item = SDESItem(type: SDESItemType(rawValue: bytes[offset]), value: bytes.view(from: offset + 2, count: length))
            offset += 2 + length
            return item
        }
    }

    /// Iterates the items.
    public func makeIterator() -> Iterator { Iterator(bytes: items, cnameOnly: cnameOnly) }

    /// Same SSRC and same items.
    public static func == (lhs: SDESChunk, rhs: SDESChunk) -> Bool {
        lhs.ssrc == rhs.ssrc && lhs.elementsEqual(rhs)
    }
}

/// The chunks of an SDES packet, iterated lazily. No allocation.
public struct SDESChunks: Sequence {
    let storage: SourceDescription.Storage

    /// The number of chunks (SC).
    public var count: Int {
        switch storage {
        case let .wire(_, count): return count
        case .cname: return 1
        }
    }

    /// Walks the chunks.
    public struct Iterator: IteratorProtocol {
        let storage: SourceDescription.Storage
        var index = 0
        var offset = 0

        /// The next chunk, or nil.
        public mutating func next() -> SDESChunk? {
            switch storage {
            case let .cname(ssrc, cname):
                guard index == 0 else { return nil }
                index = 1
                return SDESChunk(ssrc: ssrc, items: cname, cnameOnly: true)
            case let .wire(bytes, count):
                guard index < count,
                      let next = try? SourceDescription.validateChunk(bytes, at: offset) else { return nil }
                let chunk = SDESChunk(ssrc: bytes.be32(offset),
                                      items: bytes.view(from: offset + 4, count: next - offset - 4), cnameOnly: false)
                index += 1
                offset = next
                return chunk
            }
        }
    }

    /// Iterates the chunks.
    public func makeIterator() -> Iterator { Iterator(storage: storage) }
}
