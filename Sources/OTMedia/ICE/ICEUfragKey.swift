/// A local ufrag of at most 32 bytes held inline, so the agent can look a leg up from the
/// USERNAME bytes of an unauthenticated request without making a String or touching the
/// heap. Cost: a 40-byte value; hashing and equality read 33 bytes.
struct ICEUfragKey: Hashable, Sendable {
    /// The longest local ufrag the agent accepts (generated ones have 8 characters).
    static let capacity = 32

    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private(set) var count: UInt8 = 0

    /// The key for `bytes`, or nil when they are empty or longer than `capacity`.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, bytes.count <= Self.capacity else { return nil }
        count = UInt8(bytes.count)
        withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
    }

    /// The key's bytes, for `body`.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: words) { body(UnsafeRawBufferPointer(rebasing: $0[0 ..< Int(count)])) }
    }

    static func == (lhs: ICEUfragKey, rhs: ICEUfragKey) -> Bool {
        lhs.count == rhs.count && lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
