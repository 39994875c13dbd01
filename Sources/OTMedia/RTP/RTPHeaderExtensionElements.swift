/// One RFC 8285 header extension element: its local id and its data (a view into the
/// packet, valid as long as the packet's bytes are).
public struct RTPHeaderExtensionElement {
    /// The local identifier (1...14 one-byte, 1...255 two-byte).
    public let id: UInt8
    /// The element's data bytes, not copied.
    public let data: UnsafeRawBufferPointer
}

/// The elements of an RTP header extension block (RFC 8285), read in place.
///
/// One-byte profile (RFC 8285 section 4.2), after the 0xBEDE / length word:
/// ```
///  0 1 2 3 4 5 6 7
/// +-+-+-+-+-+-+-+-+
/// |  ID   |  len  |  data (len + 1 bytes) ...
/// +-+-+-+-+-+-+-+-+
/// ```
/// ID 0 is a padding byte (skipped), ID 15 ends processing of the block.
///
/// Two-byte profile (RFC 8285 section 4.3), after the 0x100X / length word:
/// ```
///  0                   1
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |       ID      |     length    |  data (length bytes) ...
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// ID 0 is a single padding byte.
///
/// Lifetime: a view over `data`; it must not outlive the buffer it was parsed from.
/// Cost: iteration and `element(id:)` walk the block (a few bytes); nothing allocated.
public struct RTPHeaderExtensionElements: Sequence {
    /// The profile that says how to read `data`.
    public let profile: RTPExtensionProfile
    /// The extension data after the profile/length word, including trailing padding.
    public let data: UnsafeRawBufferPointer

    /// RFC 8285 section 4.2: the id that ends one-byte processing.
    static let oneByteTerminatorID: UInt8 = 15
    /// One-byte profile: the id sits in the top four bits.
    static let oneByteIDShift: UInt8 = 4
    /// One-byte profile: the length-minus-one sits in the low four bits.
    static let oneByteLengthMask: UInt8 = 0x0F

    /// A view of `data` read with `profile`. Use `validate()` (the RTP parser does) before
    /// trusting that iteration sees every element.
    public init(profile: RTPExtensionProfile, data: UnsafeRawBufferPointer) {
        self.profile = profile
        self.data = data
    }

    /// Walks the whole block and throws if an element runs past its end.
    /// Cost: one pass over the block.
    public func validate() throws(RTPError) {
        var offset = 0
        while try Self.next(profile, data, &offset) != nil {}
    }

    /// The data of the first element with `id`, or nil. Cost: a walk of the block.
    public func element(id: UInt8) -> UnsafeRawBufferPointer? {
        for element in self where element.id == id { return element.data }
        return nil
    }

    /// Iterates the elements in order, skipping padding. Stops early at a malformed
    /// element (which `validate()` would have reported).
    public struct Iterator: IteratorProtocol {
        let profile: RTPExtensionProfile
        let data: UnsafeRawBufferPointer
        var offset = 0

        /// The next element, or nil at the end or at the first malformed element.
        public mutating func next() -> RTPHeaderExtensionElement? {
            do {
                return try RTPHeaderExtensionElements.next(profile, data, &offset)
            } catch {
                offset = data.count
                return nil
            }
        }
    }

    /// Returns an iterator over the elements.
    public func makeIterator() -> Iterator { Iterator(profile: profile, data: data) }

    /// Reads the element at `offset` (skipping padding) and moves past it; nil at the end
    /// of the block (or at a one-byte ID 15, which ends it). Every read is bounds-checked.
    static func next(_ profile: RTPExtensionProfile, _ data: UnsafeRawBufferPointer,
                     _ offset: inout Int) throws(RTPError) -> RTPHeaderExtensionElement? {
        switch profile {
        case .other:
            offset = data.count
            return nil
        case .oneByte:
            while offset < data.count {
                let byte = data[offset]
                let id = byte >> oneByteIDShift
                if id == 0 { offset += 1; continue }              // padding byte
                if id == oneByteTerminatorID { offset = data.count; return nil }
                let length = Int(byte & oneByteLengthMask) + 1
                let start = offset + 1
                guard length <= data.count - start else {
                    throw .extensionElementBeyondBlock(id: id, length: length, available: data.count - start)
                }
                offset = start + length
                return RTPHeaderExtensionElement(id: id, data: data.view(start..<start + length))
            }
            return nil
        case .twoByte:
            while offset < data.count {
                let id = data[offset]
                if id == 0 { offset += 1; continue }              // padding byte
                guard offset + 2 <= data.count else {
                    throw .extensionElementBeyondBlock(id: id, length: 1, available: data.count - offset - 1)
                }
                let length = Int(data[offset + 1])
                let start = offset + 2
                guard length <= data.count - start else {
                    throw .extensionElementBeyondBlock(id: id, length: length, available: data.count - start)
                }
                offset = start + length
                return RTPHeaderExtensionElement(id: id, data: data.view(start..<start + length))
            }
            return nil
        }
    }
}
