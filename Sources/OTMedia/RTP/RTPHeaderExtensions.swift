/// The header extension of an `RTPHeader` being built: a profile and its data, stored
/// inline (up to `capacity` bytes), filled element by element like a builder.
///
/// Elements are encoded as they are appended (RFC 8285 one-byte or two-byte format),
/// so `size` is known before writing and `RTPHeader.write(into:)` is one copy. Parsed
/// extensions copy in byte for byte (`init(copying:)`), padding included, so a parsed
/// header re-serializes identically.
///
/// Why inline: a header is a value that pipelines and the router copy and rewrite per
/// packet; inline storage keeps that allocation-free. 260 bytes hold one maximal
/// two-byte element (2 + 255 bytes) and WebRTC's usual set (audio level, abs-send-time,
/// transport-wide sequence, MID, RID) many times over.
///
/// Cost: 260 bytes of inline storage; `append` copies the element's bytes.
public struct RTPHeaderExtensions: Sendable, Equatable {
    /// The most extension data bytes (excluding the 4-byte profile/length word) a header holds.
    public static let capacity = 260

    /// How the data is laid out.
    public private(set) var profile: RTPExtensionProfile
    /// Bytes of extension data stored (before padding to a 32-bit boundary).
    public private(set) var count = 0
    private var storage = InlineArray<260, UInt8>(repeating: 0)

    /// An empty extension with `profile` (RFC 8285's one-byte profile by default).
    public init(profile: RTPExtensionProfile = .oneByte) {
        self.profile = profile
    }

    /// Copies a parsed extension block (its profile and data, padding included).
    /// Throws `extensionStorageFull` if it is longer than `capacity`.
    public init(copying elements: RTPHeaderExtensionElements) throws(RTPError) {
        profile = elements.profile
        try appendRaw(elements.data)
    }

    /// Bytes the extension occupies on the wire: the profile/length word plus the data
    /// padded to a multiple of four.
    public var size: Int { 4 + paddedCount }

    /// The data length rounded up to a 32-bit boundary (RFC 3550 section 5.3.1 counts
    /// the extension in 32-bit words).
    var paddedCount: Int { (count + 3) & ~3 }

    /// Appends one element with `data` (RFC 8285 section 4.2 / 4.3 encoding). Throws
    /// `notAnElementProfile` for a non-RFC 8285 profile, `invalidExtensionID` or
    /// `invalidExtensionLength` for values the profile cannot carry, and
    /// `extensionStorageFull` when the inline storage is full. Cost: copies `data`.
    public mutating func append(id: UInt8, data: UnsafeRawBufferPointer) throws(RTPError) {
        guard profile.hasElements else { throw .notAnElementProfile(profile.rawValue) }
        guard profile.validIDs.contains(id) else { throw .invalidExtensionID(id) }
        guard profile.validLengths.contains(data.count) else { throw .invalidExtensionLength(id: id, length: data.count) }
        let headerBytes = profile == .oneByte ? 1 : 2
        let needed = count + headerBytes + data.count
        guard needed <= Self.capacity else { throw .extensionStorageFull(needed: needed, capacity: Self.capacity) }
        var span = storage.mutableSpan
        span.withUnsafeMutableBytes { raw in
            if profile == .oneByte {
                raw[count] = id << RTPHeaderExtensionElements.oneByteIDShift | UInt8(data.count - 1)
            } else {
                raw[count] = id
                raw[count + 1] = UInt8(data.count)
            }
            raw.copy(data, to: count + headerBytes)
        }
        count = needed
    }

    /// Appends an element holding the low `length` bytes of `value`, big-endian (e.g. a
    /// 2-byte transport-wide sequence number or 3-byte abs-send-time). Same errors as
    /// `append(id:data:)`; `length` must be 0...8. Cost: no allocation.
    public mutating func append(id: UInt8, bigEndian value: UInt64, length: Int) throws(RTPError) {
        guard (0...8).contains(length) else { throw .invalidExtensionLength(id: id, length: length) }
        var bytes = value.bigEndian
        let result = withUnsafeBytes(of: &bytes) { raw in
            Result { () throws(RTPError) in try append(id: id, data: raw.view(8 - length..<8)) }
        }
        try result.get()
    }

    /// Appends raw extension data (any profile): bytes are stored as given.
    public mutating func appendRaw(_ data: UnsafeRawBufferPointer) throws(RTPError) {
        let needed = count + data.count
        guard needed <= Self.capacity else { throw .extensionStorageFull(needed: needed, capacity: Self.capacity) }
        var span = storage.mutableSpan
        span.withUnsafeMutableBytes { raw in raw.copy(data, to: count) }
        count = needed
    }

    /// Removes every element (the profile stays).
    public mutating func removeAll() { count = 0 }

    /// Writes the profile/length word, the data and zero padding at `offset` of `buffer`
    /// (the caller checked that `size` bytes fit). Returns the bytes written (`size`).
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        buffer.storeBE16(profile.rawValue, at: offset)
        buffer.storeBE16(UInt16(paddedCount / 4), at: offset + 2)
        storage.span.withUnsafeBytes { raw in buffer.copy(raw.view(0..<count), to: offset + 4) }
        for i in count..<paddedCount { buffer[offset + 4 + i] = 0 }
        return size
    }

    /// Equal when both write the same bytes: same profile, same data once padded with
    /// zeros to the 32-bit boundary (so a built header equals its parsed copy, whose
    /// data includes the padding).
    public static func == (a: RTPHeaderExtensions, b: RTPHeaderExtensions) -> Bool {
        guard a.profile == b.profile, a.paddedCount == b.paddedCount else { return false }
        for i in 0..<a.paddedCount {
            let x = i < a.count ? a.storage[i] : 0
            let y = i < b.count ? b.storage[i] : 0
            if x != y { return false }
        }
        return true
    }
}
