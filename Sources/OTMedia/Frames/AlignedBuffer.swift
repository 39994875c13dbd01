import Glibc

/// Memory aligned for SIMD (64 bytes), owned by the frame that holds it.
///
/// Cost: one `posix_memalign` at creation, one `free` at deinit; nothing in between.
struct AlignedBuffer: ~Copyable {
    static let alignment = 64
    let base: UnsafeMutableRawPointer
    let count: Int

    init(count: Int) {
        var pointer: UnsafeMutableRawPointer?
        let status = posix_memalign(&pointer, Self.alignment, max(count, Self.alignment))
        precondition(status == 0 && pointer != nil, "out of memory allocating \(count) bytes")
        self.base = pointer!
        self.count = count
    }

    deinit { free(base) }
}
