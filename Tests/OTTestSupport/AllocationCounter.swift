import Glibc

/// The calling thread's allocation count, read from the preloaded shim
/// `scripts/thread-alloc-counter.c` (`otk_thread_allocations()`), which scripts/test builds
/// and loads with LD_PRELOAD for the whole run.
///
/// Allocation suites use `.enabled(if: AllocationCounter.shouldRun)` and then
/// `try AllocationCounter.required()`: without the shim a bare `swift test` skips them,
/// and where dependencies are required (`TestRequirements`) a missing shim fails them. Shared by the OTMedia and OTKit allocation tests.
/// A read costs one indirect call.
public enum AllocationCounter {
    private typealias Read = @convention(c) () -> UInt64

    /// The shim's counter, nil when it is not loaded into this process.
    private static let read: Read? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "otk_thread_allocations")
        .map { unsafeBitCast($0, to: Read.self) }

    /// True when the shim is loaded.
    public static var isLoaded: Bool { read != nil }

    /// Whether allocation suites run: the shim is loaded, or the run requires it.
    public static var shouldRun: Bool { isLoaded || TestRequirements.dependenciesRequired }

    /// A reader of the calling thread's count; throws (failing the test) when the shim is missing.
    public static func required() throws -> @Sendable () -> UInt64 {
        guard let read else { throw Missing() }
        return { read() }
    }

    /// The shim is not loaded.
    public struct Missing: Error, CustomStringConvertible {
        /// How to load it.
        public var description: String {
            "the allocation counter is not loaded: build scripts/thread-alloc-counter.c and run with LD_PRELOAD (scripts/test does)"
        }
    }
}
