import OTMedia

/// Reads and rewrites the parts of a plaintext RTP packet the SFU adapts per leg, in
/// place: the transport-wide sequence element (RFC 8285 one-byte profile,
/// `RTPExtensionID.transportWideSequence`) and the VP8 payload descriptor's PictureID,
/// TL0PICIDX and TID/Y (RFC 7741 4.2). Callers pass the packet's base and length; every
/// offset is checked against the length, nothing allocates.
enum RTPInPlace {
    /// The one-byte extension profile marker (RFC 8285 4.2).
    static let oneByteProfile: UInt16 = 0xBEDE

    /// Bytes of the fixed header, CSRCs and header extension: where the payload starts,
    /// or nil when the header runs past `length`.
    @inline(__always)
    static func payloadOffset(_ p: UnsafeMutableRawPointer, _ length: Int) -> Int? {
        let first = p.load(as: UInt8.self)
        var offset = 12 + 4 * Int(first & 0x0F)
        if first & 0x10 != 0 {
            guard offset + 4 <= length else { return nil }
            offset += 4 + 4 * Int(WireBytes.be16(p, offset + 2))
        }
        return offset <= length ? offset : nil
    }

    /// The offset of the two data bytes of the transport-wide sequence element, or nil
    /// when the packet has no one-byte extension block with that element.
    static func transportSequenceOffset(_ p: UnsafeMutableRawPointer, _ length: Int) -> Int? {
        let first = p.load(as: UInt8.self)
        guard first & 0x10 != 0 else { return nil }
        let blockStart = 12 + 4 * Int(first & 0x0F)
        guard blockStart + 4 <= length, WireBytes.be16(p, blockStart) == oneByteProfile else { return nil }
        let end = blockStart + 4 + 4 * Int(WireBytes.be16(p, blockStart + 2))
        guard end <= length else { return nil }
        var offset = blockStart + 4
        while offset < end {
            let byte = p.load(fromByteOffset: offset, as: UInt8.self)
            if byte == 0 { offset += 1; continue }
            let id = byte >> 4
            if id == 15 { return nil }
            let size = Int(byte & 0x0F) + 1
            if id == RTPExtensionID.transportWideSequence {
                return size == 2 && offset + 3 <= end ? offset + 1 : nil
            }
            offset += 1 + size
        }
        return nil
    }

    /// Copies the plaintext RTP packet `source` into `buffer` making room for a
    /// transport-wide sequence element at once when it lacks one (so the element costs no
    /// second move of the payload); the value is written by `setTransportSequence`.
    /// Returns false (nothing copied) when the buffer is too small. Cost: one copy.
    static func assignMakingRoom(_ source: UnsafeRawBufferPointer, into buffer: PacketBuffer) -> Bool {
        let s = source.baseAddress!
        let length = source.count
        let first = s.load(as: UInt8.self)
        let csrcEnd = 12 + 4 * Int(first & 0x0F)
        guard first & 0x10 == 0, csrcEnd <= length, buffer.tailroom + buffer.length >= length + 8 + SRTPProfile.maxTrailer else {
            return buffer.assign(source)
        }
        guard buffer.assign(UnsafeRawBufferPointer(start: s, count: csrcEnd)) else { return false }
        let p = buffer.bytes.baseAddress!
        _ = buffer.append(8 + length - csrcEnd)
        p.storeBytes(of: first | 0x10, as: UInt8.self)
        WireBytes.store16(oneByteProfile, p, csrcEnd)
        WireBytes.store16(1, p, csrcEnd + 2)
        p.storeBytes(of: RTPExtensionID.transportWideSequence << 4 | 1, toByteOffset: csrcEnd + 4, as: UInt8.self)
        WireBytes.store16(0, p, csrcEnd + 5)
        p.storeBytes(of: 0, toByteOffset: csrcEnd + 7, as: UInt8.self)
        (p + csrcEnd + 8).copyMemory(from: s + csrcEnd, byteCount: length - csrcEnd)
        return true
    }

    /// Gives the packet a transport-wide sequence element holding `wire`: rewrites the
    /// one it has, else adds one (a new one-byte block of 8 bytes, or 4 bytes at the end
    /// of an existing one-byte block). Returns false, changing nothing, when the packet
    /// has a two-byte block or the buffer lacks room. Cost: a walk of the block, at most
    /// one move of the payload.
    static func setTransportSequence(_ buffer: PacketBuffer, _ wire: UInt16) -> Bool {
        let p = buffer.bytes.baseAddress!
        let length = buffer.length
        if let offset = transportSequenceOffset(p, length) {
            WireBytes.store16(wire, p, offset)
            return true
        }
        let first = p.load(as: UInt8.self)
        let csrcEnd = 12 + 4 * Int(first & 0x0F)
        guard csrcEnd <= length else { return false }
        let insertAt: Int
        let grow: Int
        if first & 0x10 == 0 {
            insertAt = csrcEnd
            grow = 8
        } else {
            guard csrcEnd + 4 <= length, WireBytes.be16(p, csrcEnd) == oneByteProfile else { return false }
            insertAt = csrcEnd + 4 + 4 * Int(WireBytes.be16(p, csrcEnd + 2))
            guard insertAt <= length else { return false }
            grow = 4
        }
        guard buffer.tailroom >= grow + SRTPProfile.maxTrailer else { return false }
        _ = buffer.append(grow)
        (p + insertAt + grow).copyMemory(from: p + insertAt, byteCount: length - insertAt)
        var at = insertAt
        if grow == 8 {
            p.storeBytes(of: first | 0x10, as: UInt8.self)
            WireBytes.store16(oneByteProfile, p, at)
            WireBytes.store16(1, p, at + 2)
            at += 4
        } else {
            WireBytes.store16(WireBytes.be16(p, csrcEnd + 2) + 1, p, csrcEnd + 2)
        }
        p.storeBytes(of: RTPExtensionID.transportWideSequence << 4 | 1, toByteOffset: at, as: UInt8.self)
        WireBytes.store16(wire, p, at + 1)
        p.storeBytes(of: 0, toByteOffset: at + 3, as: UInt8.self)
        return true
    }
}

/// Where the fields of one packet's VP8 payload descriptor sit (RFC 7741 4.2) and what
/// they say, read once per received packet for every leg's decisions.
struct VP8Fields {
    /// Offset of the PictureID's first byte (0: absent).
    var pictureIDOffset = 0
    /// Whether the PictureID is 15 bits (M set).
    var longPictureID = false
    /// Offset of TL0PICIDX (0: absent), and its value (0 when absent).
    var tl0Offset = 0
    var tl0PicIdx: UInt8 = 0
    /// The temporal layer (0 when TID is absent).
    var temporalLayer: Int = 0
    /// Y: this frame depends only on TL0 frames (a temporal up-switch point).
    var layerSync = false
    /// S = 1 and partition 0: the packet begins a picture.
    var startsFrame = false
    /// The picture that begins here is a keyframe (only meaningful with `startsFrame`).
    var keyframe = false
    /// A keyframe's coded size (0 otherwise).
    var width = 0
    var height = 0

    /// No descriptor: TL0, not a frame start.
    init() {}

    /// Reads the descriptor of the RTP packet at `p` (`length` bytes); nil when it is cut
    /// short. O(1).
    init?(_ p: UnsafeMutableRawPointer, _ length: Int) {
        guard let start = RTPInPlace.payloadOffset(p, length), start < length else { return nil }
        var end = length
        if p.load(as: UInt8.self) & 0x20 != 0 {  // RTP padding: the last byte counts it
            end -= Int(p.load(fromByteOffset: length - 1, as: UInt8.self))
            guard end > start else { return nil }
        }
        let first = p.load(fromByteOffset: start, as: UInt8.self)
        startsFrame = first & 0x10 != 0 && first & 0x07 == 0
        var offset = start + 1
        if first & 0x80 != 0 {
            guard offset < end else { return nil }
            let flags = p.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
            if flags & 0x80 != 0 {
                guard offset < end else { return nil }
                pictureIDOffset = offset
                longPictureID = p.load(fromByteOffset: offset, as: UInt8.self) & 0x80 != 0
                offset += longPictureID ? 2 : 1
            }
            if flags & 0x40 != 0 {
                guard offset < end else { return nil }
                tl0Offset = offset
                tl0PicIdx = p.load(fromByteOffset: offset, as: UInt8.self)
                offset += 1
            }
            if flags & 0x30 != 0 {
                guard offset < end else { return nil }
                let byte = p.load(fromByteOffset: offset, as: UInt8.self)
                if flags & 0x20 != 0 {
                    temporalLayer = Int(byte >> 6)
                    layerSync = byte & 0x20 != 0
                }
                offset += 1
            }
        }
        guard offset <= end else { return nil }
        if startsFrame, offset < end {
            keyframe = p.load(fromByteOffset: offset, as: UInt8.self) & 0x01 == 0
            if keyframe, offset + 10 <= end {
                width = Int(p.load(fromByteOffset: offset + 6, as: UInt8.self))
                    | Int(p.load(fromByteOffset: offset + 7, as: UInt8.self) & 0x3F) << 8
                height = Int(p.load(fromByteOffset: offset + 8, as: UInt8.self))
                    | Int(p.load(fromByteOffset: offset + 9, as: UInt8.self) & 0x3F) << 8
            }
        }
    }

    /// Writes `pictureID` (15 or 7 bits, as the packet has it) and `tl0` where present.
    @inline(__always)
    func rewrite(_ p: UnsafeMutableRawPointer, pictureID: UInt16, tl0: UInt8) {
        if pictureIDOffset != 0 {
            if longPictureID {
                WireBytes.store16(0x8000 | (pictureID & 0x7FFF), p, pictureIDOffset)
            } else {
                p.storeBytes(of: UInt8(pictureID & 0x7F), toByteOffset: pictureIDOffset, as: UInt8.self)
            }
        }
        if tl0Offset != 0 { p.storeBytes(of: tl0, toByteOffset: tl0Offset, as: UInt8.self) }
    }
}
