import CAllocCounter
import CBareCodec

/// The process-wide allocation count kept by the CAllocCounter malloc interposer.
enum AllocationCounter {
    /// Allocation calls so far (malloc, calloc, realloc, aligned variants), all threads.
    static var count: UInt64 { alloc_counter_count() }

    /// Proves the interposer sees allocations from the Swift runtime, libvpx and
    /// libopus; throws naming the one it does not see.
    static func verify() throws(ScenarioError) {
        let swift = delta { keepAlive(makeArray(count: 1000)) }
        let vpx = delta { _ = bare_vpx_allocation_probe() }
        let opus = delta { _ = bare_opus_allocation_probe() }
        var blind: [String] = []
        if swift == 0 { blind.append("the Swift runtime") }
        if vpx == 0 { blind.append("libvpx") }
        if opus == 0 { blind.append("libopus") }
        guard blind.isEmpty else {
            throw ScenarioError("the allocation counter does not see allocations by \(blind.joined(separator: ", ")): "
                + "malloc is not interposed in this build, so allocations per frame cannot be measured")
        }
    }

    /// Allocations made while `body` runs.
    static func delta(_ body: () -> Void) -> UInt64 {
        let before = count
        body()
        return count - before
    }
}

/// An array built out of line, so the optimizer cannot put it on the stack.
@inline(never)
func makeArray(count: Int) -> [Int] {
    [Int](repeating: count, count: count)
}

/// Keeps a value alive and opaque to the optimizer.
@inline(never)
func keepAlive<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
