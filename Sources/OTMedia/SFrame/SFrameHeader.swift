/// The SFrame header (RFC 9605 §4.3): which key (KID) and which counter (CTR) a frame
/// was encrypted with, in 1 to 17 bytes before the ciphertext.
///
/// Layout: a config byte `|X|K(3)|Y|C(3)|`, then the KID, then the CTR, each as a
/// big-endian unsigned integer in the fewest bytes. A value of 0–7 sits in K (or C)
/// with X (or Y) = 0 and takes no extra byte; a larger one takes 1–8 bytes after the
/// config byte with X (or Y) = 1 and K (or C) = its length − 1.
///
/// Parsing is strict: every length is checked against the bytes there are, and a value
/// not in its minimal form (RFC 9605: it "MUST be encoded with the minimum number of
/// bytes") is refused, so one (KID, CTR) has exactly one header and `parse` and `write`
/// are inverses. Cost: a few shifts and compares; nothing is allocated.
public struct SFrameHeader: Sendable, Hashable {
    /// The key ID: selects the key (per sender in OTKit).
    public var keyID: UInt64
    /// The counter: with the key's salt, forms the nonce; never repeats under one key.
    public var counter: UInt64

    /// The longest header: the config byte and two 8-byte values.
    public static let maxLength = 17

    /// Creates a header for a key ID and a counter.
    public init(keyID: UInt64, counter: UInt64) {
        self.keyID = keyID
        self.counter = counter
    }

    /// Bytes the header takes when written. Free.
    @inline(__always)
    public var encodedLength: Int { 1 + Self.extraBytes(keyID) + Self.extraBytes(counter) }

    /// Bytes after the config byte a value takes: 0 for 0–7, else its minimal big-endian length.
    @inline(__always)
    static func extraBytes(_ value: UInt64) -> Int {
        value < 8 ? 0 : (64 - value.leadingZeroBitCount + 7) / 8
    }

    /// Writes the header at the start of `buffer` and returns its length; throws
    /// `bufferTooSmall` (writing nothing) when the buffer is shorter than `encodedLength`.
    @inline(__always)
    public func write(to buffer: UnsafeMutableRawBufferPointer) throws(SFrameError) -> Int {
        let length = encodedLength
        guard let base = buffer.baseAddress, buffer.count >= length else {
            throw .bufferTooSmall(side: .sender, needed: length, available: buffer.count)
        }
        let kidBytes = Self.extraBytes(keyID), ctrBytes = Self.extraBytes(counter)
        let k: UInt8 = kidBytes == 0 ? UInt8(keyID) : 0x08 | UInt8(kidBytes - 1)
        let c: UInt8 = ctrBytes == 0 ? UInt8(counter) : 0x08 | UInt8(ctrBytes - 1)
        base.storeBytes(of: k << 4 | c, as: UInt8.self)
        Self.writeBigEndian(keyID, bytes: kidBytes, to: base + 1)
        Self.writeBigEndian(counter, bytes: ctrBytes, to: base + 1 + kidBytes)
        return length
    }

    @inline(__always)
    private static func writeBigEndian(_ value: UInt64, bytes: Int, to pointer: UnsafeMutableRawPointer) {
        var index = 0
        while index < bytes {
            pointer.storeBytes(of: UInt8(truncatingIfNeeded: value >> (8 * UInt64(bytes - 1 - index))), toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }

    /// Reads the header at the start of `bytes`: the header and how many bytes it took.
    /// Throws `truncatedHeader` when the bytes end before the header does, and
    /// `nonMinimalHeader` for a value in a longer form than RFC 9605 allows.
    @inline(__always)
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(SFrameError) -> (header: SFrameHeader, length: Int) {
        guard let base = bytes.baseAddress, bytes.count >= 1 else { throw .truncatedHeader(length: bytes.count, needed: 1) }
        let config = base.load(as: UInt8.self)
        let kidBytes = config & 0x80 != 0 ? Int((config >> 4) & 0x07) + 1 : 0
        let ctrBytes = config & 0x08 != 0 ? Int(config & 0x07) + 1 : 0
        let length = 1 + kidBytes + ctrBytes
        guard bytes.count >= length else { throw .truncatedHeader(length: bytes.count, needed: length) }
        let keyID = kidBytes == 0 ? UInt64((config >> 4) & 0x07) : readBigEndian(base + 1, bytes: kidBytes)
        let counter = ctrBytes == 0 ? UInt64(config & 0x07) : readBigEndian(base + 1 + kidBytes, bytes: ctrBytes)
        guard extraBytes(keyID) == kidBytes, extraBytes(counter) == ctrBytes else { throw .nonMinimalHeader }
        return (SFrameHeader(keyID: keyID, counter: counter), length)
    }

    @inline(__always)
    private static func readBigEndian(_ pointer: UnsafeRawPointer, bytes: Int) -> UInt64 {
        var value: UInt64 = 0
        var index = 0
        while index < bytes {
            value = value << 8 | UInt64(pointer.load(fromByteOffset: index, as: UInt8.self))
            index += 1
        }
        return value
    }
}
