/// Packet status chunks of transport-wide congestion control feedback,
/// draft-holmer-rmcat-transport-wide-cc-extensions-01 sections 3.1.1–3.1.4.
///
/// ```
/// Run length chunk (T = 0):          Status vector chunk (T = 1):
///  0                   1              0                   1
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |T| S |       Run Length        |  |T|S|       symbol list         |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Symbols: 00 not received, 01 received with a small delta (1 byte), 10 received with a
/// large or negative delta (2 bytes), 11 reserved. A status vector with S = 0 holds 14
/// one-bit symbols (0 not received, 1 small delta); with S = 1 it holds 7 two-bit symbols.
enum TWCCChunk {
    static let vectorBit: UInt16 = 0x8000
    static let twoBitBit: UInt16 = 0x4000
    static let runSymbolShift: UInt16 = 13
    static let runLengthMask: UInt16 = 0x1FFF
    static let oneBitCapacity = 14
    static let twoBitCapacity = 7
    static let maxRunLength = 0x1FFF

    static let notReceived: UInt8 = 0
    static let smallDelta: UInt8 = 1
    static let largeDelta: UInt8 = 2
    static let reserved: UInt8 = 3

    /// Symbols the chunk holds (a run's length, or 14 / 7).
    @inline(__always)
    static func capacity(_ chunk: UInt16) -> Int {
        if chunk & vectorBit == 0 { return Int(chunk & runLengthMask) }
        return chunk & twoBitBit == 0 ? oneBitCapacity : twoBitCapacity
    }

    /// The symbol at `index` (< capacity).
    @inline(__always)
    static func symbol(_ chunk: UInt16, _ index: Int) -> UInt8 {
        if chunk & vectorBit == 0 { return UInt8((chunk >> runSymbolShift) & 3) }
        if chunk & twoBitBit == 0 { return UInt8((chunk >> UInt16(13 - index)) & 1) }
        return UInt8((chunk >> UInt16(12 - 2 * index)) & 3)
    }

    /// Receive-delta bytes a symbol takes.
    @inline(__always)
    static func deltaSize(_ symbol: UInt8) -> Int {
        symbol == smallDelta ? 1 : symbol == largeDelta ? 2 : 0
    }

    /// Checks a chunk against the `remaining` statuses still to cover; returns how many it
    /// covers and the delta bytes they need.
    static func validate(_ chunk: UInt16, remaining: Int) throws(RTCPError) -> (covered: Int, deltaBytes: Int) {
        let capacity = capacity(chunk)
        let covered = min(capacity, remaining)
        if chunk & vectorBit == 0 {
            guard capacity > 0 else { throw .malformed(.twccEmptyRun) }
            let symbol = symbol(chunk, 0)
            guard symbol != reserved else { throw .malformed(.twccReservedSymbol) }
            return (covered, covered * deltaSize(symbol))
        }
        var bytes = 0
        for index in 0 ..< covered {
            let symbol = symbol(chunk, index)
            guard symbol != reserved else { throw .malformed(.twccReservedSymbol) }
            bytes += deltaSize(symbol)
        }
        return (covered, bytes)
    }
}

/// Packs status symbols into chunks the way libwebrtc does: collect up to 14 symbols, emit
/// a run-length chunk while they are all the same, a 1-bit vector when 14 fit without a
/// large delta, a 2-bit vector of 7 otherwise. Holds its pending symbols in one word:
/// no allocation.
struct TWCCChunkEncoder {
    /// Pending symbols, 2 bits each, the first in the lowest bits (only the first 14 kept).
    private var symbols: UInt32 = 0
    private(set) var size = 0
    private var allSame = true
    private var hasLarge = false

    private var first: UInt8 { UInt8(symbols & 3) }

    private func canAdd(_ symbol: UInt8) -> Bool {
        if size < TWCCChunk.twoBitCapacity { return true }
        if size < TWCCChunk.oneBitCapacity && !hasLarge && symbol != TWCCChunk.largeDelta { return true }
        return size < TWCCChunk.maxRunLength && allSame && symbol == first
    }

    private mutating func append(_ symbol: UInt8) {
        if size < TWCCChunk.oneBitCapacity { symbols |= UInt32(symbol) << UInt32(2 * size) }
        if size > 0 && symbol != first { allSame = false }
        if symbol == TWCCChunk.largeDelta { hasLarge = true }
        size += 1
    }

    private mutating func reset() {
        symbols = 0
        size = 0
        allSame = true
        hasLarge = false
    }

    private func symbol(_ index: Int) -> UInt16 { UInt16((symbols >> UInt32(2 * index)) & 3) }

    private func oneBit(count: Int) -> UInt16 {
        var chunk = TWCCChunk.vectorBit
        for index in 0 ..< count { chunk |= (symbol(index) & 1) << UInt16(13 - index) }
        return chunk
    }

    private func twoBit(count: Int) -> UInt16 {
        var chunk = TWCCChunk.vectorBit | TWCCChunk.twoBitBit
        for index in 0 ..< count { chunk |= symbol(index) << UInt16(12 - 2 * index) }
        return chunk
    }

    /// Emits the chunk that frees room: a run, a full 1-bit vector, or a 2-bit vector of
    /// the first 7 pending symbols (keeping the rest).
    private mutating func emitOne() -> UInt16 {
        if allSame {
            let chunk = UInt16(first) << TWCCChunk.runSymbolShift | UInt16(size)
            reset()
            return chunk
        }
        if size == TWCCChunk.oneBitCapacity {
            let chunk = oneBit(count: size)
            reset()
            return chunk
        }
        let chunk = twoBit(count: TWCCChunk.twoBitCapacity)
        let rest = size - TWCCChunk.twoBitCapacity
        let remaining = symbols >> UInt32(2 * TWCCChunk.twoBitCapacity)
        reset()
        for index in 0 ..< rest { append(UInt8((remaining >> UInt32(2 * index)) & 3)) }
        return chunk
    }

    /// Adds a symbol; returns the chunk it had to emit first to make room, if any.
    mutating func add(_ symbol: UInt8) -> UInt16? {
        var emitted: UInt16?
        if !canAdd(symbol) { emitted = emitOne() }
        append(symbol)
        return emitted
    }

    /// Emits one pending chunk, or nil when nothing is pending. Call until nil to finish
    /// (at most two chunks).
    mutating func flush() -> UInt16? {
        guard size > 0 else { return nil }
        if allSame || size == TWCCChunk.oneBitCapacity { return emitOne() }
        if size <= TWCCChunk.twoBitCapacity {
            let chunk = twoBit(count: size)
            reset()
            return chunk
        }
        if !hasLarge {
            let chunk = oneBit(count: size)
            reset()
            return chunk
        }
        return emitOne()
    }

    /// Chunks `flush` would emit now.
    var pendingChunks: Int {
        var copy = self
        var count = 0
        while copy.flush() != nil { count += 1 }
        return count
    }
}
