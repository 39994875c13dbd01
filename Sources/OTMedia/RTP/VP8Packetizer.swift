/// Splits encoded VP8 frames into RTP payloads (RFC 7741 section 4), one packet at a
/// time, written straight into the caller's packet buffers.
///
/// Use: for each frame from `VP8Encoder.encode`'s callback, call `begin(_:)`, then call
/// `nextPacket(into:)` with the region of a packet buffer after its RTP header until it
/// returns nil; set the RTP marker bit on the packet for which it returns
/// `isLast == true`, and give every packet of the frame the same RTP timestamp. All
/// packets must be taken inside the callback: `begin` keeps a pointer to the frame's
/// bytes, which libvpx reuses afterwards.
///
/// Every payload (descriptor + VP8 data) is at most `maxPayloadSize` bytes. Fragments
/// are balanced: a frame of L bytes that needs n packets gets fragments of ⌊L/n⌋ or
/// ⌈L/n⌉ bytes (the longer ones first), so the last packet is never a tiny tail and the
/// frame's packets go out as few UDP GSO sends (equal sizes, a shorter last one).
/// Packets are not aligned to VP8 partitions (RFC 7741 section 4.4 allows this): PID is
/// 0 everywhere and S = 1 only on the first packet of a frame.
///
/// Descriptor: always X = 1 with a 15-bit PictureID (M = 1) that increments per frame
/// and wraps 32767 → 0. With `temporalLayers` on, also TL0PICIDX (incremented on every
/// TID 0 frame; frames of higher layers repeat the last base-layer value) and TID/Y
/// from the encoded frame. N (non-reference) comes from the frame, on every packet.
///
/// Cost: a plain value; `begin` is arithmetic, `nextPacket` writes the descriptor and
/// copies one fragment (one `memcpy`). Nothing is allocated.
public struct VP8Packetizer {
    /// RTP payload budget used when none is given: 1200 bytes (descriptor included),
    /// which keeps a packet with RTP header, extensions and SRTP tag under 1280 bytes.
    public static let defaultMaxPayloadSize = 1200

    /// Largest payload (descriptor + VP8 data) per packet.
    public let maxPayloadSize: Int
    /// Whether descriptors carry TL0PICIDX and TID/Y (turn on when encoding with
    /// temporal layers).
    public var temporalLayers: Bool
    /// The PictureID the next frame will get (15 bits).
    public private(set) var nextPictureID: UInt16
    /// The TL0PICIDX of the last base-layer frame (the next TID 0 frame gets this + 1).
    public private(set) var tl0PicIdx: UInt8

    private var data: UnsafeRawBufferPointer?
    private var descriptor = VP8PayloadDescriptor()
    private var offset = 0
    private var index = 0
    private var count = 0
    private var baseFragment = 0
    private var longerFragments = 0

    /// A packetizer. Throws `fieldOutOfRange` when `maxPayloadSize` cannot hold the
    /// descriptor (6 bytes at most) and one byte of data, or an initial PictureID above
    /// 32767. RFC 7741 recommends a random initial PictureID; the default draws one.
    public init(maxPayloadSize: Int = VP8Packetizer.defaultMaxPayloadSize, temporalLayers: Bool = false,
                initialPictureID: UInt16 = UInt16.random(in: 0...VP8PayloadDescriptor.maxLongPictureID),
                initialTL0PicIdx: UInt8 = 0) throws(RTPError) {
        guard maxPayloadSize >= 7 else { throw .fieldOutOfRange(what: "VP8 max payload size", value: maxPayloadSize) }
        guard initialPictureID <= VP8PayloadDescriptor.maxLongPictureID else {
            throw .fieldOutOfRange(what: "VP8 PictureID", value: Int(initialPictureID))
        }
        self.maxPayloadSize = maxPayloadSize
        self.temporalLayers = temporalLayers
        nextPictureID = initialPictureID
        tl0PicIdx = initialTL0PicIdx
    }

    /// Starts a frame: assigns its PictureID (and TL0PICIDX) and plans its fragments.
    /// Returns how many packets it will take. Any packets of the previous frame not yet
    /// taken are abandoned. Throws `fieldOutOfRange` for an empty frame.
    public mutating func begin(_ frame: EncodedVideoFrame) throws(RTPError) -> Int {
        try begin(frame.data, temporalLayer: frame.temporalLayer, layerSync: frame.layerSync,
                  nonReference: frame.isNonReference)
    }

    /// `begin(_:)` for a VP8 frame given as bytes and layer fields (`temporalLayer` 0...3;
    /// `nonReference`: the N bit, the frame updates no reference buffer).
    public mutating func begin(_ frame: UnsafeRawBufferPointer, temporalLayer: Int = 0, layerSync: Bool = false,
                               nonReference: Bool = false) throws(RTPError) -> Int {
        guard frame.count > 0 else { throw .fieldOutOfRange(what: "VP8 frame length", value: 0) }
        guard (0...3).contains(temporalLayer) else { throw .fieldOutOfRange(what: "VP8 TID", value: temporalLayer) }
        descriptor = VP8PayloadDescriptor(nonReference: nonReference, startOfPartition: true, partitionIndex: 0,
                                          pictureID: nextPictureID, longPictureID: true)
        nextPictureID = (nextPictureID &+ 1) & VP8PayloadDescriptor.maxLongPictureID
        if temporalLayers {
            if temporalLayer == 0 { tl0PicIdx &+= 1 }
            descriptor.tl0PicIdx = tl0PicIdx
            descriptor.temporalLayer = UInt8(temporalLayer)
            descriptor.layerSync = layerSync
        }
        let room = maxPayloadSize - descriptor.size
        count = (frame.count + room - 1) / room
        baseFragment = frame.count / count
        longerFragments = frame.count % count
        data = frame
        offset = 0
        index = 0
        return count
    }

    /// Packets of the current frame not yet written.
    public var remainingPackets: Int { data == nil ? 0 : count - index }

    /// Writes the next payload of the current frame at the start of `buffer` (the
    /// region after the RTP header). Returns its length and whether it is the frame's
    /// last packet (set the RTP marker bit then), or nil when the frame is done. Throws
    /// `bufferTooSmall` (and writes nothing, so the call can be repeated with a larger
    /// buffer) when `buffer` cannot hold the payload; `maxPayloadSize` always suffices.
    public mutating func nextPacket(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> (length: Int, isLast: Bool)? {
        guard let data, index < count else {
            self.data = nil
            return nil
        }
        // The first `longerFragments` packets carry one byte more: a frame's packets are
        // then a run of equal sizes ending in a shorter one, what UDP GSO takes as one send.
        let fragment = baseFragment + (index < longerFragments ? 1 : 0)
        var d = descriptor
        d.startOfPartition = index == 0
        let needed = d.size + fragment
        guard buffer.count >= needed else { throw .bufferTooSmall(needed: needed, available: buffer.count) }
        let headerBytes = try d.write(into: buffer)
        buffer.copy(data.view(offset..<offset + fragment), to: headerBytes)
        offset += fragment
        index += 1
        let isLast = index == count
        if isLast { self.data = nil }
        return (headerBytes + fragment, isLast)
    }
}
