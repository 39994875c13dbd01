import Foundation
import OTSignaling
@testable import OTKit

/// Plays the router's side of the signaling wire protocol (SignalingCodec JSON) inside
/// the test, so session logic can be checked before the real router is linked in. Each
/// transport it makes is one "WebSocket"; `dropAll()` cuts them like a dead network.
final class ScriptedRouter: @unchecked Sendable {
    private let lock = NSLock()
    private var transports: [ScriptedTransport] = []
    private(set) var received: [ClientMessage] = []
    var role: WireCapabilities = WireCapabilities(role: .moderator)
    var otherConnections: [WireConnection] = []
    var otherStreams: [WireStream] = []
    var refuseToken = false
    var refuseResume = false
    /// Refuse new transports (the network is down).
    var unreachable = false
    /// Read and drop everything, answer nothing (a dead path that stays open).
    var silent = false
    let ownConnectionId = "own-connection"
    var graceMilliseconds = 5000
    /// The media leg handed out with `published`.
    var publishMedia: WireMediaLeg?
    /// The media leg handed out with `subscribed`.
    var subscribeMedia: WireMediaLeg?
    /// When set, makes the `published` leg from the request (an edge leg for its `transport`).
    var publishMediaFor: (@Sendable (PublishRequest) -> WireMediaLeg?)?
    /// When set, makes the `subscribed` leg from the request.
    var subscribeMediaFor: (@Sendable (SubscribeRequest) -> WireMediaLeg?)?
    /// The `subscribed` reply's `mediaNode` (a leg another router of a cluster serves).
    var subscribeMediaNode: String?
    /// When set, `subscribe` is answered with this error instead.
    var subscribeError: ErrorReply?
    /// Whether the `connected` reply says the session is relayed.
    var relayed = false
    /// Whether the `connected` reply says the session is end-to-end encrypted.
    var e2ee = false
    /// The archive and mute state the `connected` reply reports.
    var archive: WireArchive?
    var forceMuteAll = false
    /// What a resume reply says about the events that follow it (nil: says nothing).
    var replayedEvents: Int?

    func factory() -> SignalingTransportFactory {
        { [self] url, _, handlers throws(OTError) in
            let transport = ScriptedTransport(router: self, handlers: handlers)
            let down = lock.withLock { () -> Bool in
                if !unreachable { transports.append(transport) }
                return unreachable
            }
            transport.start(refused: down)
            return transport
        }
    }

    var messages: [ClientMessage] { lock.withLock { received } }

    func signalsReceived() -> [SignalRequest] {
        messages.compactMap { if case .signal(let request) = $0 { return request } else { return nil } }
    }

    /// Sends an event to every open transport (numbered `seq` if given).
    func push(_ message: ServerMessage, seq: Int? = nil) {
        for transport in lock.withLock({ transports }) { transport.deliver(SignalingCodec.encode(message, eventSeq: seq)) }
    }

    /// Closes every transport with a network error.
    func dropAll() {
        let all = lock.withLock { () -> [ScriptedTransport] in defer { transports = [] }; return transports }
        for transport in all { transport.fail("network down") }
    }

    fileprivate func handle(_ text: String, from transport: ScriptedTransport) {
        guard !silent, let (message, requestId) = try? SignalingCodec.decodeClientMessage(text) else { return }
        lock.withLock { received.append(message) }
        let reply: ServerMessage
        switch message {
        case .connect(let request):
            if refuseToken { reply = .error(ErrorReply(code: 1004, message: "bad token")) }
            else if request.resumeConnectionId != nil && refuseResume { reply = .error(ErrorReply(code: 1004, message: "grace expired")) }
            else {
                reply = .connected(ConnectedReply(
                    connection: WireConnection(connectionId: ownConnectionId, creationTime: 1_700_000_000_000, data: "me"),
                    capabilities: role, connections: otherConnections, streams: otherStreams, archive: archive,
                    forceMuteAll: forceMuteAll, resumeSecret: "secret", reconnectGraceMilliseconds: graceMilliseconds, relayed: relayed,
                    replayedEvents: request.resumeConnectionId != nil ? replayedEvents : nil, e2ee: e2ee))
            }
        case .ping: reply = .pong
        case .reportIssue(let report): reply = .issueReported(issueId: report.issueId ?? "router-chosen")
        case .publish(let request):
            reply = .published(PublishedReply(stream: WireStream(streamId: "own-stream", connectionId: ownConnectionId, name: request.name,
                                                                 hasAudio: request.hasAudio, hasVideo: request.hasVideo, videoWidth: request.videoWidth,
                                                                 videoHeight: request.videoHeight, videoType: request.videoType, creationTime: 1),
                                              media: publishMediaFor?(request) ?? publishMedia, muted: false))
        case .subscribe(let request):
            if let error = subscribeError { reply = .error(error); break }
            reply = .subscribed(SubscribedReply(subscriberId: "sub-\(request.streamId)", streamId: request.streamId,
                                                media: subscribeMediaFor?(request) ?? subscribeMedia, mediaNode: subscribeMediaNode))
        default: reply = .ok
        }
        transport.deliver(SignalingCodec.encode(reply, requestId: requestId))
    }
}

final class ScriptedTransport: SignalingTransport, @unchecked Sendable {
    private weak var router: ScriptedRouter?
    private let handlers: SignalingTransportHandlers
    private let lock = NSLock()
    private var closed = false
    /// One serial queue per transport: a WebSocket delivers its messages in order, so the
    /// script must too (a concurrent queue let `streamResumed` overtake `streamInterrupted`).
    private let delivery = DispatchQueue(label: "otkit.tests.scripted-transport")

    init(router: ScriptedRouter, handlers: SignalingTransportHandlers) {
        self.router = router
        self.handlers = handlers
    }

    /// Opens (or refuses) the connection, on the delivery queue like everything after it.
    func start(refused: Bool) {
        delivery.async { if refused { self.handlers.onClose("connection refused") } else { self.handlers.onOpen() } }
    }

    func send(_ text: String) -> Bool {
        guard !lock.withLock({ closed }) else { return false }
        router?.handle(text, from: self)
        return true
    }

    func deliver(_ text: String) {
        guard !lock.withLock({ closed }) else { return }
        delivery.async { self.handlers.onText(text) }
    }

    func fail(_ reason: String) {
        guard lock.withLock({ () -> Bool in defer { closed = true }; return !closed }) else { return }
        delivery.async { self.handlers.onClose(reason) }
    }

    func close() {
        guard lock.withLock({ () -> Bool in defer { closed = true }; return !closed }) else { return }
        delivery.async { self.handlers.onClose(nil) }
    }
}
