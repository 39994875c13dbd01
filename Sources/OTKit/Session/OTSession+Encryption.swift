import Dispatch
import OTMedia

/// End-to-end encryption (`setEncryptionSecret:error:`): in a session created with
/// `e2ee=true`, every client seals its media with SFrame (RFC 9605) under a key derived
/// from the secret, so the router forwards what it cannot read. See docs/e2ee.md.
extension OTSession {
    /// Sets the secret media is end-to-end encrypted with (`setEncryptionSecret:error:`).
    /// Every client of the session must set the same secret, agreed out of band; call it
    /// before publishing or subscribing, and again at any time to change the secret (all
    /// clients must follow: a subscriber whose secret differs from the publisher's gets
    /// `EncryptionSecretMismatch`, 6003, and renders nothing until they agree again).
    /// A secret of fewer than 8 or more than 256 characters throws
    /// `OTSessionInvalidEncryptionSecret` (6004) and changes nothing. In a session
    /// without `e2ee` the secret is used all the same: once a secret is set (or the router
    /// once called the session e2ee) this session's publishers always seal and its
    /// subscribers accept only sealed frames, so a router that later calls the session
    /// plain cannot make it send media in the clear.
    ///
    /// Cost: returns at once. The key (PBKDF2-HMAC-SHA256, 600,000 rounds: 0.15–0.8 s of
    /// one core) is derived on a utility queue, never on the caller's or a media thread;
    /// media keeps flowing under the previous key until the new one is ready, then each
    /// track switches between two frames (the publisher starts over with a keyframe).
    public func setEncryptionSecret(_ secret: String) throws(OTError) {
        guard SFrameBaseKey.secretLengths.contains(secret.count) else {
            throw OTError(.invalidEncryptionSecret, "the encryption secret has \(secret.count) characters; it must have 8 to 256")
        }
        let request = lock.withLock { () -> UInt64 in
            state.encryptionSecrets += 1
            state.sealsMedia = true
            return state.encryptionSecrets
        }
        let sessionId = self.sessionId
        keyDerivation.async { [weak self] in
            // A secret set again meanwhile makes this one moot: skip the work.
            guard let self, self.lock.withLock({ self.state.encryptionSecrets == request }) else { return }
            let key: SFrameBaseKey
            do { key = try SFrameBaseKey(secret: secret, sessionID: sessionId) } catch {
                self.log.add("encryption secret: \(error)")
                return
            }
            self.lock.withLock {
                guard self.state.encryptionSecrets == request else { return }  // the latest secret wins
                self.encryptionKeys.install(key)
            }
        }
    }

    /// The key slot pipelines seal and open frames with: the session's once a secret was
    /// set or the router called the session e2ee (sticky: no later reply turns it off),
    /// nil otherwise (media goes as encoded). One lock.
    var endToEndKeySlot: SFrameKeySlot? { lock.withLock { state.sealsMedia || state.e2ee } ? encryptionKeys : nil }

    /// `OTSessionEncryptionSecretMissing` (6000, reported to the publisher as OpenTok's
    /// Linux SDK does) when this e2ee session has no secret yet; nil otherwise. One lock.
    func missingEncryptionSecret() -> OTError? {
        let missing = lock.withLock { state.e2ee && state.encryptionSecrets == 0 }
        guard missing else { return nil }
        return OTError(publisherCode: OTSessionErrorCode.encryptionSecretMissing.rawValue,
                       "this session is end-to-end encrypted: call setEncryptionSecret before publishing")
    }
}
