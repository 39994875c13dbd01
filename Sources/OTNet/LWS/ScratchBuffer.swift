import CLibWebSockets

/// A growable byte buffer with `LWS_PRE` bytes of headroom, owned by one service thread
/// and reused for every `lws_write` (lws needs the headroom for frame headers; when the
/// kernel takes only part of a write, lws copies the rest, so the buffer is free again as
/// soon as `lws_write` returns). Cost: grows to the largest message written; no
/// allocation per write after that.
final class ScratchBuffer {
    static let headroom = Int(clws_pre)
    private var base: UnsafeMutableRawPointer
    private var capacity: Int

    init(capacity: Int = 64 << 10) {
        self.capacity = capacity
        base = .allocate(byteCount: Self.headroom + capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// A pointer to `count` writable bytes that have `LWS_PRE` bytes before them.
    func payload(count: Int) -> UnsafeMutablePointer<UInt8> {
        if count > capacity {
            base.deallocate()
            capacity = max(count, capacity * 2)
            base = .allocate(byteCount: Self.headroom + capacity, alignment: 16)
        }
        return (base + Self.headroom).assumingMemoryBound(to: UInt8.self)
    }

    /// Copies the UTF-8 bytes of `text` into the buffer; returns the payload pointer and length.
    func load(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
        var text = text
        return text.withUTF8 { utf8 in
            let target = payload(count: utf8.count)
            if let source = utf8.baseAddress { target.update(from: source, count: utf8.count) }
            return (target, utf8.count)
        }
    }
}
