/// Swift-native variants: each starts the call and waits for its outcome.
extension OTSession {
    /// Connects and returns after `sessionDidConnect` (delegates are still called);
    /// throws the synchronous error or the one `session(_:didFailWithError:)` gets.
    public func connect(token: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            work.async {
                do throws(OTError) {
                    try self.connect(withToken: token)
                    self.connectWaiters.append(continuation)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Publishes and returns after `publisher(_:streamCreated:)`; throws the synchronous
    /// error or the one `publisher(_:didFailWithError:)` gets.
    public func publish(_ publisher: OTPublisherKit) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            publisher.lock.withLock { publisher.publishWaiters.append(continuation) }
            do throws(OTError) { try self.publish(publisher) } catch {
                publisher.resolvePublishWaiters(error)
            }
        }
    }

    /// Subscribes and returns after `subscriberDidConnectToStream`; throws the
    /// synchronous error or the one `subscriber(_:didFailWithError:)` gets.
    public func subscribe(_ subscriber: OTSubscriberKit) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            subscriber.lock.withLock { subscriber.subscribeWaiters.append(continuation) }
            do throws(OTError) { try self.subscribe(subscriber) } catch {
                subscriber.resolveSubscribeWaiters(error)
            }
        }
    }
}
