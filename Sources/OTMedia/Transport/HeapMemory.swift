import CUDP

/// The process heap, as seen by a server that frees a lot at once (a router closing many
/// media legs).
public enum HeapMemory {
    /// Gives the pages of freed heap memory back to the kernel (`malloc_trim(0)`), so the
    /// resident size follows what is in use. glibc keeps freed small blocks mapped
    /// otherwise, and a router that once held 2,000 legs would stay 1 GB large. Cost: a
    /// walk over the allocator's free lists and one `madvise` per free run of pages (a few
    /// milliseconds on a large heap; other threads' allocations wait for that time), so
    /// call it after a burst of frees, not per free. Returns true if anything was released.
    @discardableResult
    public static func returnFreedPages() -> Bool { CUDP_malloc_trim() == 1 }
}
