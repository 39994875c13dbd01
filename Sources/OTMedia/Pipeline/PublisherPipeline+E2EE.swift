/// End-to-end encryption on the publisher: what the application learns and counts.
extension PublisherPipeline {
    /// Sets the hook called the first time sealing a frame fails for an internal reason
    /// (OpenTok's `OTPublisherEncryptionInternalError`, 6001); later failures drop their
    /// frames without calling it again. Called on a media thread: return quickly. One lock.
    public func onEncryptionFailure(_ hook: (@Sendable (SFrameError) -> Void)?) {
        encryptionFailureHook.withLock { $0 = hook }
    }

    /// Encoded frames (audio and video) not sent because the session's key was not ready
    /// yet (the secret is still being derived, or none was set). One atomic load.
    public var framesDroppedWithoutKey: UInt64 { framesWithoutKey.load(ordering: .relaxed) }

    /// Seals `frame` (its first `clearBytes` left clear and authenticated) into `output`;
    /// its length, or nil when it must not be sent: no key yet (counted) or a failure
    /// (reported once as 6001). Per frame: AES-GCM over it, nothing allocated.
    @inline(__always)
    func seal(_ frame: UnsafeRawBufferPointer, clearBytes: Int, with encryptor: SFrameFrameEncryptor,
              into output: UnsafeMutableRawBufferPointer) -> Int? {
        do {
            guard let length = try encryptor.encrypt(frame, clearBytes: clearBytes, into: output) else {
                framesWithoutKey.add(1, ordering: .relaxed)
                return nil
            }
            return length
        } catch {
            encryptionFailed(error)
            return nil
        }
    }

    /// A frame could not be sealed: it is dropped; the hook hears of the first failure.
    func encryptionFailed(_ error: SFrameError) {
        record(MediaError(.codecFailure, "end-to-end encryption: \(error)"))
        guard !encryptionFailedOnce.exchange(true, ordering: .relaxed) else { return }
        encryptionFailureHook.withLock { $0 }?(error)
    }
}
