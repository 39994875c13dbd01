/// The reference's call shapes: each OpenTok method that takes `OTError**` has a twin
/// here taking a pointer to an `OTError?`, so the guides' Swift compiles unchanged:
///
///     var error: OTError?
///     session.connect(withToken: token, error: &error)
///     if let error { print("connect failed with error: \(error)") }
///
/// The pointer (nil allowed) is set to the synchronous error, or to nil when there is
/// none; what happens later goes to the delegates, exactly as with the throwing forms
/// these call. Cost: that of the throwing form.
extension OTSession {
    /// `connectWithToken:error:` (see `connect(withToken:)`).
    public func connect(withToken token: String, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try connect(withToken: token) }
    }

    /// `disconnect:`: leaves the session (see `disconnect()`); sets `error` to 1010 when
    /// the session was not connected (nothing to leave).
    public func disconnect(_ error: UnsafeMutablePointer<OTError?>?) {
        let status = sessionConnectionStatus
        guard status == .connected || status == .connecting || status == .reconnecting else {
            error?.pointee = OTError(.notConnected, "disconnect: the session is \(status)")
            return
        }
        error?.pointee = nil
        disconnect()
    }

    /// `setEncryptionSecret:error:` (see `setEncryptionSecret(_:)`).
    public func setEncryptionSecret(_ secret: String, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try setEncryptionSecret(secret) }
    }

    /// `publish:error:` (see `publish(_:)`; errors in the publisher domain).
    public func publish(_ publisher: OTPublisherKit, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try publish(publisher) }
    }

    /// `unpublish:error:` (see `unpublish(_:)`).
    public func unpublish(_ publisher: OTPublisherKit, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try unpublish(publisher) }
    }

    /// `subscribe:error:` (see `subscribe(_:)`; errors in the subscriber domain).
    public func subscribe(_ subscriber: OTSubscriberKit, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try subscribe(subscriber) }
    }

    /// `unsubscribe:error:` (see `unsubscribe(_:)`). Takes an optional, as the guide
    /// passes its `var subscriber: OTSubscriber?` unchanged; nil sets 1112.
    public func unsubscribe(_ subscriber: OTSubscriberKit?, error: UnsafeMutablePointer<OTError?>?) {
        guard let subscriber else {
            error?.pointee = OTError(subscriberCode: 1112, "unsubscribe: no subscriber given")
            return
        }
        Self.report(error) { () throws(OTError) in try unsubscribe(subscriber) }
    }

    /// `signalWithType:string:connection:error:` (see `signal(type:string:connection:retryAfterReconnect:)`).
    public func signal(withType type: String?, string: String?, connection: OTConnection?, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try signal(type: type, string: string, connection: connection) }
    }

    /// `signalWithType:string:connection:retryAfterReconnect:error:`: with
    /// `retryAfterReconnect` false a signal made while reconnecting is silently not sent
    /// (no error), as in OpenTok.
    public func signal(withType type: String?, string: String?, connection: OTConnection?, retryAfterReconnect: Bool,
                       error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in
            try signal(type: type, string: string, connection: connection, retryAfterReconnect: retryAfterReconnect)
        }
    }

    /// `forceMuteAll:error:`; `excludedStreams` nil mutes every stream.
    public func forceMuteAll(_ excludedStreams: [OTStream]?, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try forceMuteAll(excluding: excludedStreams ?? []) }
    }

    /// `forceMuteStream:error:`.
    public func forceMuteStream(_ stream: OTStream, error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try forceMuteStream(stream) }
    }

    /// `disableForceMute:`.
    public func disableForceMute(_ error: UnsafeMutablePointer<OTError?>?) {
        Self.report(error) { () throws(OTError) in try disableForceMute() }
    }

    /// `forceDisconnect:error:`; a nil connection sets 1011.
    public func forceDisconnect(_ connection: OTConnection?, error: UnsafeMutablePointer<OTError?>?) {
        guard let connection else {
            error?.pointee = OTError(.nullOrInvalidParameter, "forceDisconnect: no connection given")
            return
        }
        Self.report(error) { () throws(OTError) in try forceDisconnect(connection) }
    }

    /// `reportIssue:`: sets `issueId` to the report's id at once (nil when not
    /// connected); does not wait for the router (see `reportIssue()`).
    public func reportIssue(_ issueId: UnsafeMutablePointer<String?>?) {
        issueId?.pointee = try? reportIssue()
    }

    private static func report(_ pointer: UnsafeMutablePointer<OTError?>?, _ body: () throws(OTError) -> Void) {
        do {
            try body()
            pointer?.pointee = nil
        } catch {
            pointer?.pointee = error
        }
    }
}
