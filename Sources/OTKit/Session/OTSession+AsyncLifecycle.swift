import Foundation

/// Swift-native variants of unpublish and unsubscribe: each returns once the router
/// confirmed the removal (or the session ended, which removes everything of ours).
/// The call is made on the work queue, so the waiter is registered before anything the
/// call starts there can finish.
extension OTSession {
    /// Unpublishes and returns once the router removed the stream (the publisher's
    /// `streamDestroyed` is then on its way to `apiQueue`), or the session ended. While
    /// reconnecting it waits for the resume. Throws the synchronous error (1113).
    /// Cost: one signaling round trip.
    public func unpublish(_ publisher: OTPublisherKit) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            work.async {
                do throws(OTError) {
                    try self.unpublish(publisher)
                    publisher.lock.withLock { publisher.unpublishWaiters.append(continuation) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Unsubscribes and returns once the router removed the subscription (for a
    /// subscribe the router had not answered yet: once its answer was undone), or the
    /// session ended. Throws the synchronous error (1112). Cost: one signaling round trip.
    public func unsubscribe(_ subscriber: OTSubscriberKit) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            work.async {
                do throws(OTError) {
                    try self.unsubscribe(subscriber)
                    subscriber.lock.withLock { subscriber.unsubscribeWaiters.append(continuation) }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
