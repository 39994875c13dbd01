import Foundation

/// OTKit-specific (no OpenTok counterpart): something went wrong that does not end the
/// session, so it is not `session(_:didFailWithError:)`, which the reference keeps for
/// a failed connect or a lost session. Each is also written to the session's log.
public struct OTSessionNotice: Sendable, Equatable, CustomStringConvertible {
    /// What kind of thing went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// The router refused a signal (rate limit, target gone).
        case signalRefused
        /// A signal was not sent: the session was reconnecting and `retryAfterReconnect`
        /// was false (OpenTok drops it silently).
        case signalNotSent
        /// The router refused a moderation call (force mute, force disconnect).
        case moderationRefused
        /// The router reported an error that answers no request (e.g. a message of ours
        /// it could not read); the session goes on.
        case routerError
        /// An issue report made with `reportIssue()` / `reportIssue(_:)` was not stored.
        case issueReportFailed
        /// The publisher's media path to the router is interrupted: its edge leg heard no
        /// answer to ICE consent checks for 30 s (RFC 7675). The error is
        /// `OTPublisherWebRTCError` (1610); the publisher stays published.
        case publisherMediaInterrupted
        /// The publisher's media path answers again after `publisherMediaInterrupted`; the
        /// error carries code 0 (`OTPublisherSuccess`) and says so.
        case publisherMediaResumed
    }

    /// What kind of thing went wrong.
    public let kind: Kind
    /// The error, with OpenTok's code.
    public let error: OTError

    /// "signalRefused: OTSessionErrorDomain 1550: …".
    public var description: String { "\(kind.rawValue): \(error)" }
}

/// An OTKit-specific delegate method, looked for on the session's delegate: adopt it
/// beside `OTSessionDelegate` to hear `OTSessionNotice`s on `apiQueue`. Cost: none
/// unless adopted.
public protocol OTSessionNoticeDelegate: AnyObject {
    /// Something went wrong that does not end the session (see `OTSessionNotice`).
    func session(_ session: OTSession, otkitNotice notice: OTSessionNotice)
}

extension OTSession {
    /// Every `OTSessionNotice`, in order, yielded on `apiQueue`. Each access makes a new
    /// stream (buffering the newest 256); it ends when the session is released.
    public var notices: AsyncStream<OTSessionNotice> {
        let (stream, continuation) = AsyncStream<OTSessionNotice>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        lock.withLock { noticeContinuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.noticeContinuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Logs a notice and tells `notices` and an `OTSessionNoticeDelegate`, on `apiQueue`
    /// after what was delivered before. Any queue.
    func notify(_ kind: OTSessionNotice.Kind, _ error: OTError) {
        let notice = OTSessionNotice(kind: kind, error: error)
        log.add("notice \(notice)")
        onApiQueue {
            let delegate = self.delegate
            let continuations = self.lock.withLock { Array(self.noticeContinuations.values) }
            (delegate as? any OTSessionNoticeDelegate)?.session(self, otkitNotice: notice)
            for continuation in continuations { continuation.yield(notice) }
        }
    }
}
