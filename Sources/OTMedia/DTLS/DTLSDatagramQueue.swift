import CSSL

/// The datagrams OpenSSL wrote during one `DTLSTransport` call, kept apart.
///
/// A memory BIO concatenates what is written to it, but each `BIO_write` OpenSSL makes on
/// the write BIO is one datagram (its buffering BIO flushes whole datagrams of at most the
/// link MTU). A BIO callback copies each write here as it happens, so the boundaries are
/// kept; the memory BIO itself is emptied after every call.
///
/// Storage is allocated once (16 KB of bytes, 64 datagram ends) and reused: steady-state
/// calls allocate nothing. It grows (rarely: a flight larger than 16 KB) by doubling.
/// Used from the transport's thread only.
final class DTLSDatagramQueue {
    private(set) var bytes: UnsafeMutableRawPointer
    private var capacity: Int
    /// The end offset of each datagram in `bytes`.
    private(set) var ends: [Int]
    /// Scratch space for application data read and discarded.
    let scratch: UnsafeMutableRawBufferPointer

    init() {
        capacity = 16_384
        bytes = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        ends = []
        ends.reserveCapacity(64)
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 16)
    }

    deinit {
        bytes.deallocate()
        scratch.deallocate()
    }

    var count: Int { ends.count }

    var used: Int { ends.last ?? 0 }

    /// The `index`th datagram, valid until the next `removeAll` or `append`.
    func datagram(_ index: Int) -> UnsafeRawBufferPointer {
        let start = index == 0 ? 0 : ends[index - 1]
        return UnsafeRawBufferPointer(start: bytes + start, count: ends[index] - start)
    }

    func removeAll() {
        ends.removeAll(keepingCapacity: true)
        if let target = shrinkTarget { shrink(to: target) }
    }

    /// Brings the storage down to `bytes`, keeping the datagrams it holds (their bytes
    /// move: read them again after this call); when they do not fit, at the next
    /// `removeAll`. One allocation, once.
    func shrinkKeepingDatagrams(to bytes: Int) {
        guard bytes < capacity else { return }
        shrinkTarget = bytes
        shrink(to: bytes)
    }

    /// Set by `shrinkKeepingDatagrams` while the datagrams held do not fit the target yet.
    private var shrinkTarget: Int?

    private func shrink(to target: Int) {
        guard target > 0, target < capacity, used <= target else { return }
        shrinkTarget = nil
        let smaller = UnsafeMutableRawPointer.allocate(byteCount: target, alignment: 16)
        smaller.copyMemory(from: bytes, byteCount: used)
        bytes.deallocate()
        bytes = smaller
        capacity = target
    }

    func append(_ source: UnsafeRawPointer, count: Int) {
        guard count > 0 else { return }
        let start = used
        if start + count > capacity {
            var grown = capacity * 2
            while start + count > grown { grown *= 2 }
            let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            larger.copyMemory(from: bytes, byteCount: start)
            bytes.deallocate()
            bytes = larger
            capacity = grown
        }
        (bytes + start).copyMemory(from: source, byteCount: count)
        ends.append(start + count)
    }

    /// Makes every completed write on `bio` (the SSL's write BIO) land here.
    func watch(_ bio: OpaquePointer) {
        BIO_set_callback_arg(bio, Unmanaged.passUnretained(self).toOpaque().assumingMemoryBound(to: CChar.self))
        BIO_set_callback_ex(bio, dtlsRecordWrite)
    }
}

/// The BIO callback: after each successful write (`BIO_CB_WRITE | BIO_CB_RETURN`), copy the
/// `*processed` bytes just written into the queue named by the callback argument.
private let dtlsRecordWrite: BIO_callback_fn_ex = { bio, operation, data, _, _, _, result, processed in
    if operation == BIO_CB_WRITE | BIO_CB_RETURN, result > 0, let data, let processed, let bio,
       let argument = BIO_get_callback_arg(bio) {
        let queue = Unmanaged<DTLSDatagramQueue>.fromOpaque(UnsafeRawPointer(argument)).takeUnretainedValue()
        queue.append(UnsafeRawPointer(data), count: processed.pointee)
    }
    return Int(result)
}
