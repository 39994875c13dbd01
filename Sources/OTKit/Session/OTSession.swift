import Foundation
import Synchronization
import OTMedia
import OTSignaling

/// A session with the router (`OTSession`): connect with a token, publish, subscribe,
/// signal, moderate; what happens is told to `delegate` on `apiQueue`.
///
/// Threads: calls may come from any thread. Synchronous errors are thrown; everything
/// asynchronous goes to the delegates, on `apiQueue`, in order. The default `apiQueue`
/// is `DispatchQueue.main`, as on iOS: a command-line app must run the main queue
/// (`dispatchMain()`, or `RunLoop.main.run()`), or set its own serial queue before
/// connecting, or it will never hear from the session. Internally one serial queue
/// owns the signaling state; media runs on the pipelines' own threads, and an edge
/// leg's ICE + DTLS setup on a shared concurrent queue (so it holds up nothing else).
///
/// Cost: one WebSocket (one service thread) while connected, a 1 s heartbeat, and per
/// publisher/subscriber one media pipeline (its threads and UDP socket).
public final class OTSession: @unchecked Sendable {
    /// The session id the app created it with.
    public let sessionId: String
    /// The API key the app created it with.
    public let apiKey: String
    /// A copy of the settings it was created with (changing it changes nothing).
    public var settings: OTSessionSettings { configuration.copy() }
    /// The session's own copy of its settings, never changed after `init`.
    let configuration: OTSessionSettings

    let lock = NSLock()
    var state = State()
    let work: DispatchQueue
    let log = ClientLog()
    private weak var storedDelegate: (any OTSessionDelegate)?
    private var storedApiQueue: DispatchQueue = .main
    var eventContinuations: [UUID: AsyncStream<OTSessionEvent>.Continuation] = [:]
    var noticeContinuations: [UUID: AsyncStream<OTSessionNotice>.Continuation] = [:]

    // Work-queue only.
    var channel: SignalingChannel?
    var reconnectDeadline: Date?
    /// The last router event handled (its `seq`), for acknowledgement and resume.
    var lastEventSeq = 0
    /// On resume: the reply to reconcile once its replayed events are handled, and how
    /// many are still to come.
    var pendingReconciliation: (reply: ConnectedReply, remaining: Int)?
    /// The routers of the cluster the router named (`ConnectedReply.clusterNodes`), where
    /// resume attempts go in turn after `routerURL`; and how many attempts were made.
    var clusterNodes: [String] = []
    var resumeAttempts = 0
    /// The router base URL of the live channel, and of the attempt in flight (nil: `routerURL`).
    var currentBase: String?
    var attemptBase: String?
    var statsTimer: DispatchSourceTimer?
    var connectWaiters: [CheckedContinuation<Void, any Error>] = []
    /// Unpublish/unsubscribe requests and cancelled publishes/subscribes in flight (OTSession+Lifecycle).
    var lifecycle = LifecycleRequests()
    /// Subscribers that subscribed again by themselves after losing their leg (OTSession+Resubscribe.swift).
    let resubscribes = ResubscribeCounters()
    /// Set while a reconnection connects afresh because the router could not resume the
    /// connection (its session's node died; OTSession+Rejoin.swift). Work queue only.
    var rejoining = false
    /// Reconnections that ended as a fresh connection (OTSession+Rejoin.swift), for tests and logs.
    let rejoins = Atomic<Int>(0)

    /// What the session knows, under `lock`.
    struct State {
        var status: OTSessionConnectionStatus = .notConnected
        var connection: OTConnection?
        var capabilities: OTSessionCapabilities?
        var streams: [String: OTStream] = [:]
        var connections: [String: OTConnection] = [:]
        var token: String?
        var resumeSecret: String?
        var graceSeconds: Double = 30
        var publisher: OTPublisherKit?
        var subscribers: [OTSubscriberKit] = []
        var queuedSignals: [QueuedSignal] = []
        /// The last signal id given (`SignalRequest.id`; per connection).
        var lastSignalId = 0
        /// The archive recording now, as last heard (reconciled on resume).
        var activeArchiveId: String?
        var forceMuteAllActive = false
        /// The router said the session is relayed (peer-to-peer media).
        var relayed = false
        /// The router said the session is end-to-end encrypted (`e2ee=true`).
        var e2ee = false
        /// Sticky: a secret was set, or the router once said e2ee. From then on this
        /// session's media is always sealed and only sealed frames are accepted, whatever a
        /// later connect reply says (a restarted or hostile router cannot downgrade it).
        var sealsMedia = false
        /// `setEncryptionSecret` calls so far (the latest derivation wins).
        var encryptionSecrets: UInt64 = 0
    }

    /// The session's SFrame key, once `setEncryptionSecret`'s derivation finished; every
    /// pipeline of an e2ee session reads it (`OTSession+Encryption`).
    let encryptionKeys = SFrameKeySlot()
    /// Where this session's secrets become keys: a serial utility queue of its own
    /// (PBKDF2 is CPU work that must not hold up the caller, the session's queue, media,
    /// or another session's secret change).
    let keyDerivation = DispatchQueue(label: "otkit.e2ee.key-derivation", qos: .utility)

    /// A session for `sessionId` under `apiKey` (`initWithApiKey:sessionId:delegate:settings:`,
    /// and without `settings:` the three-argument form); `settings` nil means the
    /// defaults. Nil when the key or id is empty (as iOS's initializer returns nil).
    /// Nothing happens on the network until `connect`.
    public init?(apiKey: String, sessionId: String, delegate: (any OTSessionDelegate)?,
                 settings: OTSessionSettings? = nil) {
        guard !apiKey.isEmpty, !sessionId.isEmpty else { return nil }
        self.apiKey = apiKey
        self.sessionId = sessionId
        self.configuration = settings?.copy() ?? OTSessionSettings()
        self.storedDelegate = delegate
        self.work = DispatchQueue(label: "otkit.session")
    }

    deinit {
        let channel = self.channel
        channel?.close()
    }

    /// Whom the session tells what happens (held weakly).
    public var delegate: (any OTSessionDelegate)? {
        get { lock.withLock { storedDelegate } }
        set { lock.withLock { storedDelegate = newValue } }
    }

    /// The queue delegate calls arrive on (default `DispatchQueue.main`; see the type's
    /// notes). Must be serial for calls to arrive in order.
    public var apiQueue: DispatchQueue {
        get { lock.withLock { storedApiQueue } }
        set { lock.withLock { storedApiQueue = newValue } }
    }

    /// Where the session is in its life.
    public var sessionConnectionStatus: OTSessionConnectionStatus { lock.withLock { state.status } }
    /// Your own connection; nil until `sessionDidConnect`. Implicitly unwrapped, as
    /// OpenTok's Swift interface has it, so the guides'
    /// `stream.connection.connectionId == session.connection.connectionId` compiles.
    public var connection: OTConnection! { lock.withLock { state.connection } }
    /// What your token allows; nil until `sessionDidConnect`.
    public var capabilities: OTSessionCapabilities? { lock.withLock { state.capabilities } }
    /// Other clients' streams in the session, keyed by stream id.
    public var streams: [String: OTStream] { lock.withLock { state.streams } }

    /// Every delegate call as an `OTSessionEvent`, in order, yielded on `apiQueue` right
    /// after the delegate method. Each access makes a new stream; it ends when the
    /// session is released.
    public var events: AsyncStream<OTSessionEvent> {
        let (stream, continuation) = AsyncStream<OTSessionEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        lock.withLock { eventContinuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.eventContinuations.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: - Connect / disconnect

    /// Connects with a token (`connectWithToken:error:`). Throws 1011 for an empty token
    /// or an unusable `settings.routerURL`, 1015 when not disconnected. The outcome
    /// arrives as `sessionDidConnect` or `session(_:didFailWithError:)` (1004 for a bad
    /// token, 1006 when the router cannot be reached; the status returns to notConnected).
    public func connect(withToken token: String) throws(OTError) {
        guard !token.isEmpty else { throw OTError(.nullOrInvalidParameter, "the token is empty") }
        guard let url = settings.webSocketURL(sessionId: sessionId) else {
            throw OTError(.nullOrInvalidParameter, "routerURL \"\(settings.routerURL)\" is not an http(s) or ws(s) URL")
        }
        try lock.withTypedLock { () throws(OTError) in
            guard state.status == .notConnected || state.status == .failed else {
                throw OTError(.illegalState, "connect called while the session is \(state.status)")
            }
            state.status = .connecting
            state.token = token
        }
        log.add("connect to \(url)")
        work.async { self.openChannel(url: url, resume: false) }
    }

    /// Leaves the session (`disconnect:`): stops publishing and subscribing, tells the
    /// router, and ends with `sessionDidDisconnect`. Does nothing when not connected.
    public func disconnect() {
        let status = lock.withLock { () -> OTSessionConnectionStatus in
            let before = state.status
            if before == .connected || before == .reconnecting || before == .connecting { state.status = .disconnecting }
            return before
        }
        guard status == .connected || status == .reconnecting || status == .connecting else { return }
        work.async {
            guard let channel = self.channel, channel.isOpen, status != .reconnecting else {
                self.finishDisconnect(error: nil)
                return
            }
            let sent = channel.request(.disconnect) { _ in self.finishDisconnect(error: nil) }
            if !sent { self.finishDisconnect(error: nil); return }
            // The router answers and closes; don't wait for ever if it doesn't.
            self.work.asyncAfter(deadline: .now() + 2) { self.finishDisconnect(error: nil) }
        }
    }

    // MARK: - Delivery

    /// Calls the delegate and feeds `events`, on `apiQueue`. Work queue only (keeps order).
    func deliver(_ event: OTSessionEvent) {
        let queue = apiQueue
        log.add("event \(event)")
        queue.async {
            let (delegate, continuations) = self.lock.withLock { (self.storedDelegate, Array(self.eventContinuations.values)) }
            if let delegate { Self.call(delegate, self, event) }
            for continuation in continuations { continuation.yield(event) }
        }
    }

    /// Runs `body` on `apiQueue` (publisher and subscriber delegate calls), after
    /// everything delivered before it. Work queue only.
    func onApiQueue(_ body: @escaping @Sendable () -> Void) {
        apiQueue.async(execute: body)
    }

    private static func call(_ delegate: any OTSessionDelegate, _ session: OTSession, _ event: OTSessionEvent) {
        switch event {
        case .didConnect: delegate.sessionDidConnect(session)
        case .didDisconnect: delegate.sessionDidDisconnect(session)
        case .didFail(let error): delegate.session(session, didFailWithError: error)
        case .streamCreated(let stream): delegate.session(session, streamCreated: stream)
        case .streamDestroyed(let stream): delegate.session(session, streamDestroyed: stream)
        case .connectionCreated(let connection): delegate.session(session, connectionCreated: connection)
        case .connectionDestroyed(let connection): delegate.session(session, connectionDestroyed: connection)
        case .signal(let type, let from, let data): delegate.session(session, receivedSignalType: type, from: from, with: data)
        case .archiveStarted(let id, let name): delegate.session(session, archiveStartedWithId: id, name: name)
        case .archiveStopped(let id): delegate.session(session, archiveStoppedWithId: id)
        case .didBeginReconnecting: delegate.sessionDidBeginReconnecting(session)
        case .didReconnect: delegate.sessionDidReconnect(session)
        case .muteForced(let info): delegate.session(session, muteForced: info)
        }
    }
}
