/// The VP8 payload descriptor that starts every VP8 RTP payload (RFC 7741 section 4.2).
///
/// ```
///       0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+
///      |X|R|N|S|R| PID | (REQUIRED)
///      +-+-+-+-+-+-+-+-+
/// X:   |I|L|T|K| RSV   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// I:   |M| PictureID   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
///      |   PictureID   | (second byte when M = 1: 15-bit PictureID)
///      +-+-+-+-+-+-+-+-+
/// L:   |   TL0PICIDX   | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///      +-+-+-+-+-+-+-+-+
/// ```
///
/// N: the frame can be discarded without affecting others. S: the payload starts a VP8
/// partition; PID: which partition (0...7). With S = 1 and PID = 0 the packet starts a
/// frame. T: TID (0...3) and Y (layer sync) are present; K: KEYIDX (0...31) is present;
/// the T/K byte is present when either is set. RFC 7741 asks for T whenever L is set;
/// the parser tolerates L alone (as deployed senders do) and writes what it is given.
///
/// Cost: a plain value; parsing reads at most 6 bytes, writing stores at most 6.
public struct VP8PayloadDescriptor: Sendable, Equatable {
    /// N: non-reference frame (may be discarded).
    public var nonReference = false
    /// S: start of a VP8 partition.
    public var startOfPartition = false
    /// PID: the partition index, 0...7.
    public var partitionIndex: UInt8 = 0
    /// I: the PictureID (7 or 15 bits), or nil when absent.
    public var pictureID: UInt16?
    /// M: true for a 15-bit PictureID (two bytes), false for 7 bits (one byte).
    public var longPictureID = true
    /// L: TL0PICIDX, the running index of base-layer (TID 0) frames, or nil.
    public var tl0PicIdx: UInt8?
    /// T: the temporal layer index TID, 0...3, or nil when absent.
    public var temporalLayer: UInt8?
    /// Y: layer sync (the frame depends only on TID 0 frames). Meaningful when T is set.
    public var layerSync = false
    /// K: KEYIDX, the running index of keyframes (0...31), or nil.
    public var keyIndex: UInt8?

    static let extendedBit: UInt8 = 0x80       // X
    static let nonReferenceBit: UInt8 = 0x20   // N
    static let startBit: UInt8 = 0x10          // S
    static let partitionMask: UInt8 = 0x07     // PID
    static let pictureIDBit: UInt8 = 0x80      // I
    static let tl0PicIdxBit: UInt8 = 0x40      // L
    static let tidBit: UInt8 = 0x20            // T
    static let keyIndexBit: UInt8 = 0x10       // K
    static let longPictureIDBit: UInt8 = 0x80  // M
    static let tidShift: UInt8 = 6
    static let layerSyncBit: UInt8 = 0x20      // Y
    static let keyIndexMask: UInt8 = 0x1F
    /// The largest 15-bit PictureID.
    public static let maxLongPictureID: UInt16 = 0x7FFF
    /// The largest 7-bit PictureID.
    public static let maxShortPictureID: UInt16 = 0x7F

    /// A descriptor with the given fields (all optional fields absent by default).
    public init(nonReference: Bool = false, startOfPartition: Bool = false, partitionIndex: UInt8 = 0,
                pictureID: UInt16? = nil, longPictureID: Bool = true, tl0PicIdx: UInt8? = nil,
                temporalLayer: UInt8? = nil, layerSync: Bool = false, keyIndex: UInt8? = nil) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.longPictureID = longPictureID
        self.tl0PicIdx = tl0PicIdx
        self.temporalLayer = temporalLayer
        self.layerSync = layerSync
        self.keyIndex = keyIndex
    }

    /// True when this packet starts a frame (S = 1 and PID = 0).
    public var startsFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// Parses the descriptor at the start of `payload`; returns it and its length in
    /// bytes (the VP8 data starts there). Throws `truncated` when a byte announced by X,
    /// I, M, L, T or K is missing. Never traps.
    public static func parse(_ payload: UnsafeRawBufferPointer) throws(RTPError) -> (descriptor: VP8PayloadDescriptor, length: Int) {
        guard payload.count >= 1 else { throw .truncated(what: "VP8 payload descriptor", needed: 1, available: 0) }
        var d = VP8PayloadDescriptor()
        let first = payload[0]
        d.nonReference = first & nonReferenceBit != 0
        d.startOfPartition = first & startBit != 0
        d.partitionIndex = first & partitionMask
        var offset = 1
        guard first & extendedBit != 0 else { return (d, offset) }

        func need(_ n: Int, _ what: String) throws(RTPError) {
            guard payload.count - offset >= n else {
                throw .truncated(what: what, needed: offset + n, available: payload.count)
            }
        }
        try need(1, "VP8 extended control bits")
        let flags = payload[offset]
        offset += 1
        if flags & pictureIDBit != 0 {
            try need(1, "VP8 PictureID")
            let high = payload[offset]
            if high & longPictureIDBit != 0 {
                try need(2, "VP8 15-bit PictureID")
                d.pictureID = UInt16(high & ~longPictureIDBit) << 8 | UInt16(payload[offset + 1])
                d.longPictureID = true
                offset += 2
            } else {
                d.pictureID = UInt16(high)
                d.longPictureID = false
                offset += 1
            }
        }
        if flags & tl0PicIdxBit != 0 {
            try need(1, "VP8 TL0PICIDX")
            d.tl0PicIdx = payload[offset]
            offset += 1
        }
        if flags & (tidBit | keyIndexBit) != 0 {
            try need(1, "VP8 TID/Y/KEYIDX")
            let byte = payload[offset]
            offset += 1
            if flags & tidBit != 0 {
                d.temporalLayer = byte >> tidShift
                d.layerSync = byte & layerSyncBit != 0
            }
            if flags & keyIndexBit != 0 { d.keyIndex = byte & keyIndexMask }
        }
        return (d, offset)
    }

    /// Bytes `write(into:)` writes. (Must match `write(into:)`.)
    public var size: Int {
        var size = 1
        guard hasExtension else { return size }
        size += 1
        if pictureID != nil { size += longPictureID ? 2 : 1 }
        if tl0PicIdx != nil { size += 1 }
        if temporalLayer != nil || keyIndex != nil { size += 1 }
        return size
    }

    /// True when any optional field is present (X = 1).
    var hasExtension: Bool { pictureID != nil || tl0PicIdx != nil || temporalLayer != nil || keyIndex != nil }

    /// Writes the descriptor at the start of `buffer`; returns `size`. Throws
    /// `bufferTooSmall`, or `fieldOutOfRange` for a PID above 7, a PictureID too big for
    /// its length, a TID above 3 or a KEYIDX above 31. Cost: at most 6 byte stores.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        let size = self.size
        guard buffer.count >= size else { throw .bufferTooSmall(needed: size, available: buffer.count) }
        guard partitionIndex <= Self.partitionMask else { throw .fieldOutOfRange(what: "VP8 partition index", value: Int(partitionIndex)) }
        if let pictureID, pictureID > (longPictureID ? Self.maxLongPictureID : Self.maxShortPictureID) {
            throw .fieldOutOfRange(what: "VP8 PictureID", value: Int(pictureID))
        }
        if let temporalLayer, temporalLayer > 3 { throw .fieldOutOfRange(what: "VP8 TID", value: Int(temporalLayer)) }
        if let keyIndex, keyIndex > Self.keyIndexMask { throw .fieldOutOfRange(what: "VP8 KEYIDX", value: Int(keyIndex)) }

        var first = partitionIndex
        if nonReference { first |= Self.nonReferenceBit }
        if startOfPartition { first |= Self.startBit }
        guard hasExtension else {
            buffer[0] = first
            return 1
        }
        buffer[0] = first | Self.extendedBit
        var flags: UInt8 = 0
        var offset = 2
        if let pictureID {
            flags |= Self.pictureIDBit
            if longPictureID {
                buffer[offset] = Self.longPictureIDBit | UInt8(pictureID >> 8)
                buffer[offset + 1] = UInt8(truncatingIfNeeded: pictureID)
                offset += 2
            } else {
                buffer[offset] = UInt8(pictureID)
                offset += 1
            }
        }
        if let tl0PicIdx {
            flags |= Self.tl0PicIdxBit
            buffer[offset] = tl0PicIdx
            offset += 1
        }
        if temporalLayer != nil || keyIndex != nil {
            var byte: UInt8 = 0
            if let temporalLayer {
                flags |= Self.tidBit
                byte |= temporalLayer << Self.tidShift
                if layerSync { byte |= Self.layerSyncBit }
            }
            if let keyIndex {
                flags |= Self.keyIndexBit
                byte |= keyIndex
            }
            buffer[offset] = byte
            offset += 1
        }
        buffer[1] = flags
        return offset
    }
}
