import Foundation
import OTSignaling

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

    /// Subscribes and returns after `subscriberDidConnect(toStream:)`; throws the
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

extension OTSession {
    /// Sends an issue report and returns the id the router stored it under (the one
    /// `reportIssue()` made, when the router honours it). Throws 1010 when not
    /// connected, or the router's refusal.
    public func reportIssue() async throws -> String {
        guard sessionConnectionStatus == .connected else { throw OTError(.notConnected, "reportIssue needs a connected session") }
        let issueId = UUID().uuidString.lowercased()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            work.async {
                let report = IssueReport(description: "", stats: self.statsLines(), logs: self.log.lines(), issueId: issueId)
                let sent = self.channel?.request(.reportIssue(report), answerOnClose: true) { reply in
                    switch reply {
                    case .issueReported(let stored): continuation.resume(returning: stored)
                    case .error(let error): continuation.resume(throwing: OTError(sessionCode: error.code, error.message))
                    default: continuation.resume(throwing: OTError(OTSessionErrorCode.internalError, "unexpected reply to reportIssue"))
                    }
                } ?? false
                if !sent { continuation.resume(throwing: OTError(.notConnected, "the session is not connected")) }
            }
        }
    }
}
