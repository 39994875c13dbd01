import Foundation
import Synchronization
@testable import OTKit

/// How a background `await` ended, for a synchronous test body to wait on: "returned",
/// "cancelled" (`CancellationError`) or "threw <code>".
///
/// The task runs on a queue of its own: the test bodies block their thread while they
/// wait, and with every thread of the cooperative pool blocked so (two cores, suites in
/// parallel) a task there would never start.
final class AsyncOutcome: Sendable {
    private let value = Mutex<String?>(nil)
    private static let executor = QueueTaskExecutor()

    /// Runs `body` in a task and records how it ended.
    init(_ body: @escaping @Sendable () async throws -> Void) {
        Task(executorPreference: Self.executor) { [self] in
            let outcome: String
            do {
                try await body()
                outcome = "returned"
            } catch is CancellationError {
                outcome = "cancelled"
            } catch {
                outcome = "threw \(error)"
            }
            value.withLock { $0 = outcome }
        }
    }

    /// The outcome so far (nil while the `await` is pending).
    var current: String? { value.withLock { $0 } }

    /// Waits up to `seconds` for an outcome; nil when the `await` is still pending.
    func wait(_ seconds: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let current { return current }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return current
    }
}

/// A task executor that runs jobs on one serial dispatch queue.
final class QueueTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "test.async-outcome")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension OTSession {
    /// Blocks the session's work queue (requests are sent and answers handled there)
    /// until the returned semaphore is signalled: calls made meanwhile are surely
    /// ahead of any answer.
    func holdWorkQueue() -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        work.async {
            held.signal()
            release.wait()
        }
        held.wait()
        return release
    }
}
