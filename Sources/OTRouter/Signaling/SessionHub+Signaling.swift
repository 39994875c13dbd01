import Foundation
import OTMedia
import OTNet
import OTSignaling

/// The signaling plane: one WebSocket per client on `/v1/session/{sessionId}/ws`, JSON
/// messages per ``SignalingCodec``. Every request gets exactly one reply carrying its
/// request id; events fan out to the other clients.
///
/// Error codes (OpenTok's numbers): 1004 refused token (then close; counted by reason;
/// nobody hears of it), 1010 a request before `connect` or a refused resume (then close),
/// 1011 a malformed message (counted; the connection stays) or an unknown target of a
/// moderation request, 1027 session full, 1413 signal data over 8192 bytes, 1461 bad
/// signal type, 1500 publish/subscribe not allowed by the role or no media leg, 1520/1540
/// force disconnect/mute by a non-moderator, 1550 signal from publisheronly or to a
/// connection not in the session, 1604 subscribe to an unknown stream (or to your own
/// relayed publisher's stream, or a browser's `sdp: true` to one; a routed stream is served
/// like any other), 1112/1113 unknown
/// subscriber/stream of this connection, 1600 a browser's `subscriberAnswer` that does not
/// fit the router's offer (`SessionHub+BrowserSDP`; a good one gets no reply). Signals to everyone reach the sender too (as
/// OpenTok's do). A force-muted stream stays muted at the SFU until its publisher
/// announces `hasAudio: true` (the user unmuting, which OpenTok allows) or a moderator
/// disables mute-all. A resume re-checks the token except its expiry (the resume secret
/// proves the client) and is followed by the events the client missed (`EventLog`); a
/// resume of a connection lost with a dead owner, in a session this node took over, hears
/// 1024 (`ErrorReply.rejoinCode`: connect again; docs/scale.md, "Failover"). A
/// signal whose `id` is at or below the highest id delivered from its connection is a
/// resend after a resume: answered `ok`, not delivered again.
extension SessionHub {
    // MARK: - Socket lifecycle

    func opened(_ peer: any WebSocketPeer, path: String, query: [(name: String, value: String)] = []) {
        guard let sessionId = SignalingPath.sessionId(in: path) else {
            perform { close(peer, code: 1008, reason: "not a signaling path: use /v1/session/{sessionId}/ws") }
            return
        }
        var peer = peer
        var forwardedBy: String?
        if let forwarding {
            do throws(ClusterMarker.Forged) {
                if let mark = try forwarding.marker.verifySocket(query, sessionId: sessionId) {
                    peer = ForwardedPeer(peer, node: mark.node, client: mark.client)
                    forwardedBy = mark.node
                }
            } catch {
                forwarding.forged("socket", remote: peer.remoteAddress)
                perform { close(peer, code: 1008, reason: "cluster mark does not verify") }
                return
            }
        } else if query.contains(where: { $0.name == ClusterMarker.viaArgument }) {
            counters.badMessage()
            perform { close(peer, code: 1008, reason: "this router is not in a cluster") }
            return
        }
        perform { peers[peer.id] = PeerState(peer: peer, sessionId: sessionId, connectionId: nil, lastHeard: .now, forwardedBy: forwardedBy) }
    }

    func closed(_ peer: any WebSocketPeer) {
        perform {
            guard let state = peers.removeValue(forKey: peer.id), let connectionId = state.connectionId else { return }
            if sessions[state.sessionId]?.connections[connectionId]?.peer?.id == peer.id {
                detach(connectionId, in: state.sessionId, why: "socket closed")
            }
        }
    }

    func received(_ peer: any WebSocketPeer, text: String) {
        perform {
            guard var state = peers[peer.id] else { return }  // already dropped (silence, force disconnect)
            state.lastHeard = .now
            peers[peer.id] = state
            let message: ClientMessage
            let requestId: Int
            do throws(SignalingDecodingError) {
                (message, requestId) = try SignalingCodec.decodeClientMessage(text)
            } catch {
                counters.badMessage()
                log.log(.warning, "message.malformed", session: state.sessionId, connection: state.connectionId,
                        ["error": error.description])
                send(.error(ErrorReply(code: 1011, message: error.description)), requestId: Self.requestId(in: text), to: peer)
                return
            }
            guard let connectionId = state.connectionId else {
                switch message {
                case .connect(let request): connect(request, requestId: requestId, state: state, text: text)
                case .ping: send(.pong, requestId: requestId, to: peer)
                default: send(.error(ErrorReply(code: 1010, message: "not connected: send connect first")), requestId: requestId, to: peer)
                }
                return
            }
            handle(message, requestId: requestId, connectionId: connectionId, sessionId: state.sessionId, peer: peer)
        }
    }

    /// The `requestId` of a message that did not decode, if it has a readable one.
    static func requestId(in text: String) -> Int? {
        guard text.utf8.count <= SignalingCodec.maximumMessageBytes,
              let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else { return nil }
        return object["requestId"] as? Int
    }

    // MARK: - Connect

    private func refuseToken(_ reason: String, _ message: String, requestId: Int, state: PeerState) {
        counters.badToken(reason)
        log.log(.warning, "token.refused", session: state.sessionId, ["reason": reason, "remote": state.peer.remoteAddress])
        send(.error(ErrorReply(code: 1004, message: message)), requestId: requestId, to: state.peer)
        close(state.peer, code: 1008, reason: "authorization failure")
        peers[state.peer.id] = nil
    }

    private func connect(_ request: ConnectRequest, requestId: Int, state: PeerState, text: String) {
        guard let credentials = configuration.project(request.apiKey) else {
            refuseToken("unknown_api_key", "the API key \(request.apiKey) is not served by this router", requestId: requestId, state: state)
            return
        }
        let resuming = request.resumeConnectionId != nil
        let grant: VerifiedToken
        do throws(OTSignalingError) {
            grant = try OpenTokToken.verify(request.token, credentials: credentials, sessionID: state.sessionId)
        } catch {
            // A resuming client proves itself with its resume secret; a token that expired
            // during a long session must not stop it from coming back.
            // (An expiry of Int64.min, signed by a careless server, has no second before it.)
            if resuming, case .expired(let expireTime, _) = error, expireTime > .min,
               let again = try? OpenTokToken.verify(request.token, credentials: credentials, sessionID: state.sessionId,
                                                    now: expireTime - 1) {
                grant = again
            } else {
                refuseToken(TokenRejection.reason(error), "token refused: \(error.description)", requestId: requestId, state: state)
                return
            }
        }
        if draining, state.forwardedBy == nil {
            // A resumer hears "dropped" and tries the next router; a newcomer hears "refused".
            let code = resuming ? 1022 : 1023
            send(.error(ErrorReply(code: code, message: "this router is draining: connect through another router of the cluster")),
                 requestId: requestId, to: state.peer)
            close(state.peer, code: 1001, reason: "draining")
            peers[state.peer.id] = nil
            log.log(.info, "connection.refusedDraining", session: state.sessionId, ["remote": state.peer.remoteAddress])
            return
        }
        if placedElsewhere(request, requestId: requestId, state: state, text: text) { return }
        guard var session = sessionOrAdopt(state.sessionId, apiKey: credentials.apiKey).flatMap({ sessions.removeValue(forKey: $0.id) }) else {
            refuseToken("wrong_api_key", "session \(state.sessionId) does not belong to API key \(credentials.apiKey)",
                        requestId: requestId, state: state)
            return
        }
        defer { sessions[session.id] = session }
        if let resumeId = request.resumeConnectionId {
            resume(resumeId, secret: request.resumeSecret ?? "", eventSeq: request.eventSeq, requestId: requestId, state: state,
                   session: &session)
            return
        }
        func refuse(_ limit: RouterLimit, _ message: String) {
            counters.limitRefused(limit)
            log.log(.warning, "connection.refused", session: session.id, ["limit": limit.rawValue, "remote": state.peer.remoteAddress])
            send(.error(ErrorReply(code: 1027, message: message)), requestId: requestId, to: state.peer)
            close(state.peer, code: 1008, reason: "connection limit")
            peers[state.peer.id] = nil
        }
        guard session.connections.count < configuration.maxConnectionsPerSession else {
            return refuse(.connectionsPerSession, "the session has \(configuration.maxConnectionsPerSession) connections, its limit")
        }
        let address = Self.addressKey(state.peer.remoteAddress)
        guard addressHasRoom(address) else {
            return refuse(.connectionsPerAddress,
                          "\(address) has \(configuration.limits.connectionsPerAddress) connections to this router, its limit")
        }
        var connection = ConnectionRecord(id: Self.newID(), apiKey: credentials.apiKey, role: grant.role, data: grant.connectionData,
                                          creationTime: Self.nowMilliseconds(), layoutClassList: grant.initialLayoutClassList,
                                          resumeSecret: Self.randomSecret(), peer: state.peer)
        connection.address = address
        connection.acknowledgesEvents = request.eventSeq != nil
        if connection.acknowledgesEvents { eventLogs[connection.id] = EventLog() }
        addressJoined(address)
        let reply = connectedReply(for: connection, in: session)
        session.connections[connection.id] = connection
        session.connectionOrder.append(connection.id)
        session.emptySince = nil
        peers[state.peer.id]?.connectionId = connection.id
        send(.connected(reply), requestId: requestId, to: state.peer)
        state.peer.markAuthenticated()  // lifts the server's unauthenticated deadline
        broadcast(.connectionCreated(connection.wire), in: session, except: connection.id)
        log.log(.info, "connection.created", session: session.id, connection: connection.id,
                ["role": grant.role.rawValue, "tokenFormat": grant.format.rawValue, "remote": state.peer.remoteAddress])
    }

    private func connectedReply(for connection: ConnectionRecord, in session: SessionRecord, ownStreams: Bool = false) -> ConnectedReply {
        let others = session.connectionOrder.filter { $0 != connection.id }.compactMap { session.connections[$0]?.wire }
        let streams = session.streamOrder.compactMap { session.streams[$0]?.wire }
            .filter { ownStreams || $0.connectionId != connection.id }
        let archive = session.activeArchiveId.flatMap { archives[$0] }.map { WireArchive(id: $0.id, name: $0.name ?? "") }
        var reply = ConnectedReply(connection: connection.wire, capabilities: WireCapabilities(role: connection.role), connections: others,
                                   streams: streams, archive: archive, forceMuteAll: session.muteAll, resumeSecret: connection.resumeSecret,
                                   reconnectGraceMilliseconds: Int(configuration.reconnectGraceSeconds * 1000), relayed: session.relayed,
                                   e2ee: session.e2ee)
        if let urls = cluster?.nodeURLs, !urls.isEmpty { reply.clusterNodes = urls }
        return reply
    }

    /// Re-attaches a connection to a new socket: the others see `streamResumed` for its
    /// streams and nothing else; the client gets `connected` and then the events it
    /// missed after `eventSeq` (`SessionHub+EventLog`). Unknown id or wrong secret → 1010
    /// and close; events missed past the log's room → 1010, close, and the connection
    /// ends (`networkDisconnected`), as a resume would lose them.
    private func resume(_ connectionId: String, secret: String, eventSeq: Int?, requestId: Int, state: PeerState,
                        session: inout SessionRecord) {
        func refuse(_ message: String) {
            send(.error(ErrorReply(code: 1010, message: message)), requestId: requestId, to: state.peer)
            close(state.peer, code: 1008, reason: "resume refused")
            peers[state.peer.id] = nil
        }
        if session.connections[connectionId] == nil, let cluster, cluster.tookOver(session.id) {
            // The session's old owner died with this connection: connect afresh (docs/scale.md, "Failover").
            send(.error(ErrorReply(code: ErrorReply.rejoinCode, message: "session \(session.id) moved to this node after its node failed; connection \(connectionId) is gone: connect again")),
                 requestId: requestId, to: state.peer)
            close(state.peer, code: 1000, reason: "rejoin")
            peers[state.peer.id] = nil
            log.log(.info, "connection.rejoinAsked", session: session.id, connection: connectionId)
            return
        }
        guard let connection = session.connections[connectionId],
              Self.constantTimeEqual(Array(connection.resumeSecret.utf8), Array(secret.utf8)) else {
            return refuse("connection \(connectionId) cannot be resumed: unknown, wrong secret, or its grace period ended")
        }
        guard let replay = eventsToReplay(for: connectionId, after: eventSeq, acknowledges: connection.acknowledgesEvents) else {
            refuse("connection \(connectionId) cannot be resumed without losing events: \(droppedDescription(of: connectionId))")
            log.log(.warning, "connection.eventsLost", session: session.id, connection: connectionId)
            if let old = connection.peer {
                peers[old.id] = nil
                close(old, code: 1000, reason: "events lost")
            }
            sessions[session.id] = session
            destroyConnection(connectionId, in: session.id, reason: "networkDisconnected")
            session = sessions.removeValue(forKey: session.id)!
            return
        }
        let wasInterrupted = connection.peer == nil
        if let old = connection.peer {  // the old socket is not known dead yet: replace it quietly
            peers[old.id] = nil
            close(old, code: 1000, reason: "replaced by a resumed socket")
        }
        session.connections[connectionId]!.peer = state.peer
        session.connections[connectionId]!.graceDeadline = nil
        detached[connectionId] = nil
        peers[state.peer.id]?.connectionId = connectionId
        var reply = connectedReply(for: session.connections[connectionId]!, in: session, ownStreams: true)
        reply.replayedEvents = replay.count
        send(.connected(reply), requestId: requestId, to: state.peer)
        for text in replay { send(text: text, to: state.peer) }  // right after the reply, in order
        state.peer.markAuthenticated()
        mediaAtProxyLost(connectionId: connectionId, in: &session)
        if wasInterrupted {
            for streamId in connection.streams { broadcast(.streamResumed(streamId: streamId), in: session, except: connectionId) }
        }
        if session.relayed { resendEncodingLimits(of: connectionId, in: session) }
        log.log(.info, "connection.resumed", session: session.id, connection: connectionId, ["replayed": String(replay.count)])
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    // MARK: - Requests of a connected client

    private func handle(_ message: ClientMessage, requestId: Int, connectionId: String, sessionId: String, peer: any WebSocketPeer) {
        guard var session = sessions.removeValue(forKey: sessionId) else { return }
        defer { sessions[sessionId] = session }
        guard let me = session.connections[connectionId] else { return }
        func reply(_ message: ServerMessage) { send(message, requestId: requestId, to: peer) }
        func fail(_ code: Int, _ text: String) { reply(.error(ErrorReply(code: code, message: text))) }

        switch message {
        case .connect:
            fail(1011, "already connected as \(connectionId)")
        case .ping:
            reply(.pong)
        case .acknowledgeEvents(let through):
            acknowledgeEvents(through: through, of: connectionId)
            reply(.ok)
        case .publish(let request):
            guard me.role.canPublish else { return fail(1500, "unable to publish: the token's role \(me.role.rawValue) cannot publish") }
            publish(request, me: me, session: &session, requestId: requestId, peer: peer, reply: reply, fail: fail)
        case .unpublish(let streamId):
            guard me.streams.contains(streamId) else { return fail(1113, "stream \(streamId) is not published by this connection") }
            removeStream(streamId, from: &session, reason: "unpublished")
            reply(.ok)
        case .subscribe(let request):
            guard me.role.canSubscribe else { return fail(1500, "unable to subscribe: the token's role \(me.role.rawValue) cannot subscribe") }
            guard let stream = session.streams[request.streamId] else { return fail(1604, "stream \(request.streamId) is not in the session") }
            // Your own stream comes back through the SFU when the router carries it; a relayed
            // publisher's own leg has no media server to carry it (it sends to its peers itself).
            if !stream.routed, stream.wire.connectionId == connectionId {
                return fail(1604, "unable to subscribe to your own stream in a relayed session: no media router carries it; use a routed session")
            }
            subscribe(request, me: me, session: &session, requestId: requestId, peer: peer, reply: reply, fail: fail)
        case .unsubscribe(let subscriberId):
            guard me.subscriptions.contains(subscriberId) else { return fail(1112, "subscriber \(subscriberId) is not this connection's") }
            let gone = session.subscriptions.removeValue(forKey: subscriberId)
            session.connections[connectionId]!.subscriptions.remove(subscriberId)
            if gone?.routed ?? !session.relayed { removeLegLater(subscriberId) }
            reply(.ok)
            if let gone, !gone.routed { relayedPreferencesChanged(streamId: gone.streamId, in: &session) }
        case .subscriptionChanged(let change):
            guard me.subscriptions.contains(change.subscriberId), var record = session.subscriptions[change.subscriberId] else {
                return fail(1112, "subscriber \(change.subscriberId) is not this connection's")
            }
            record.audio = change.subscribeToAudio ?? record.audio
            record.video = change.subscribeToVideo ?? record.video
            session.subscriptions[change.subscriberId] = record
            if record.routed { media.setForwarding(subscriberId: change.subscriberId, audio: record.audio, video: record.video) }
            reply(.ok)
        case .subscriberPreferences(let preferences):
            guard me.subscriptions.contains(preferences.subscriberId), session.subscriptions[preferences.subscriberId] != nil else {
                return fail(1112, "subscriber \(preferences.subscriberId) is not this connection's")
            }
            session.subscriptions[preferences.subscriberId]!.preferences = preferences
            if !session.subscriptions[preferences.subscriberId]!.routed {
                relayedPreferencesChanged(streamId: session.subscriptions[preferences.subscriberId]!.streamId, in: &session)
            } else {
                routedPreferencesChanged(preferences)
            }
            reply(.ok)
        case .signal(let request):
            guard me.role.canSignal else { return fail(1550, "unable to send signal: the token's role publisheronly cannot signal") }
            if let id = request.id, id <= me.lastSignalId {
                // Sent again after a resume, but delivered the first time: confirm, deliver nothing.
                log.log(.debug, "signal.duplicate", session: sessionId, connection: connectionId, ["id": String(id)])
                return reply(.ok)
            }
            if let violation = SignalLimits.check(type: request.type, data: request.data) { return fail(violation.code, violation.message) }
            guard session.connections[connectionId]!.signalBudget.take(rate: configuration.limits.signalsPerSecond) else {
                counters.limitRefused(.signalsPerSecond)
                return fail(1550, "unable to send signal: over \(configuration.limits.signalsPerSecond) signals per second")
            }
            guard deliverSignal(type: request.type, data: request.data, from: connectionId, to: request.to, in: session) else {
                return fail(1550, "unable to send signal: connection \(request.to ?? "") is not in the session")
            }
            if let id = request.id { session.connections[connectionId]!.lastSignalId = id }
            reply(.ok)
        case .streamChanged(let change):
            guard me.streams.contains(change.streamId) else { return fail(1113, "stream \(change.streamId) is not published by this connection") }
            if let audio = change.hasAudio {
                session.streams[change.streamId]!.wire.hasAudio = audio
                // The publisher turning its audio back on is the user unmuting, which OpenTok allows.
                if audio, session.streams[change.streamId]!.muted {
                    session.streams[change.streamId]!.muted = false
                    if session.streams[change.streamId]!.routed { media.setAudioMuted(streamId: change.streamId, false) }
                }
            }
            if let video = change.hasVideo { session.streams[change.streamId]!.wire.hasVideo = video }
            // A new encoded size (range-checked as it decoded): later joiners see it too.
            if let width = change.videoWidth, let height = change.videoHeight {
                session.streams[change.streamId]!.wire.videoWidth = width
                session.streams[change.streamId]!.wire.videoHeight = height
            }
            broadcast(.streamChanged(change), in: session, except: connectionId)
            reply(.ok)
        case .forceMuteAll(let excluded):
            guard me.role.canModerate else { return fail(1540, "unable to force mute: only a moderator token may") }
            muteAll(excluding: excluded, in: &session)
            reply(.ok)
        case .forceMuteStream(let streamId):
            guard me.role.canModerate else { return fail(1540, "unable to force mute: only a moderator token may") }
            guard muteStream(streamId, in: &session) else { return fail(1011, "stream \(streamId) is not in the session") }
            reply(.ok)
        case .disableForceMute:
            guard me.role.canModerate else { return fail(1540, "unable to force mute: only a moderator token may") }
            disableMute(in: &session)
            reply(.ok)
        case .forceDisconnect(let target):
            guard me.role.canModerate else { return fail(1520, "unable to force disconnect: only a moderator token may") }
            guard session.connections[target] != nil else { return fail(1011, "connection \(target) is not in the session") }
            reply(.ok)
            sessions[sessionId] = session
            _ = forceDisconnect(target, in: sessionId)
            session = sessions.removeValue(forKey: sessionId)!
        case .reportIssue(let report):
            // The client's own id when it is a fresh UUID (it already returned it to the app), else ours.
            let chosen = report.issueId.flatMap { Self.isClientIssueID($0) && issues[$0] == nil ? $0 : nil }
            let issue = IssueRecord(id: chosen ?? Self.newID(), apiKey: me.apiKey, sessionId: sessionId, connectionId: connectionId,
                                    time: Self.nowMilliseconds(), report: report)
            issues[issue.id] = issue
            issueOrder.append(issue.id)
            if issueOrder.count > Self.issueCapacity { issues[issueOrder.removeFirst()] = nil }
            log.log(.info, "issue.reported", session: sessionId, connection: connectionId, ["issue": issue.id])
            reply(.issueReported(issueId: issue.id))
        case .subscriberAnswer(let answer):
            guard me.subscriptions.contains(answer.subscriberId) else {
                return fail(1112, "subscriber \(answer.subscriberId) is not this connection's")
            }
            subscriberAnswered(answer, connectionId: connectionId, sessionId: sessionId, requestId: requestId, peer: peer)
        case .disconnect:
            reply(.ok)
            peers[peer.id] = nil
            close(peer, code: 1000, reason: "disconnected")
            sessions[sessionId] = session
            destroyConnection(connectionId, in: sessionId, reason: "clientDisconnected")
            session = sessions.removeValue(forKey: sessionId)!
        }
    }

    private func publish(_ request: PublishRequest, me: ConnectionRecord, session: inout SessionRecord, requestId: Int,
                         peer: any WebSocketPeer, reply: (ServerMessage) -> Void, fail: (Int, String) -> Void) {
        let streamId = Self.newID()
        guard me.streams.count + me.pendingStreams < configuration.limits.streamsPerConnection else {
            counters.limitRefused(.streamsPerConnection)
            return fail(1500, "unable to publish: this connection already publishes \(me.streams.count) stream(s), its limit")
        }
        // A browser in a relayed session publishes through the router (below) as in a
        // routed one: it cannot reach native peers directly (docs/sessions.md).
        if session.relayed, request.sdpOffer == nil {
            if let relayedLeg = request.relayedLeg, let problem = Self.relayedLegProblem(relayedLeg, announcer: me.peer?.remoteAddress) {
                counters.badMessage()
                log.log(.warning, "stream.badRelayedLeg", session: session.id, connection: me.id, ["problem": problem])
                return fail(1011, "unable to publish: the relayed media leg \(problem)")
            }
            return land(request, streamId: streamId, leg: nil, connectionId: me.id, in: &session, reply: reply)
        }
        if let offer = request.sdpOffer {  // a browser: its leg is negotiated (SessionHub+BrowserSDP)
            return browserPublish(request, offer: offer, me: me, session: &session, requestId: requestId, peer: peer)
        }
        guard mediaSocketsHaveRoom else {
            counters.limitRefused(.mediaSockets)
            return fail(1500, "unable to publish: the router has \(configuration.limits.mediaSockets) media sockets open, its limit")
        }
        // The leg (socket, SRTP, the stream's thread) is opened once the lock is released.
        session.connections[me.id]!.pendingStreams += 1
        pendingLegs += 1
        let sessionId = session.id, connectionId = me.id
        afterUnlock { [self] in
            var leg: WireMediaLeg?
            var failure: MediaError?
            do throws(MediaError) {
                leg = try media.addPublisher(streamId: streamId, audio: request.audioTrack, video: request.videoTrack,
                                             simulcastLayers: min(max(request.simulcastLayers ?? 1, 1), 3),
                                             transport: request.transport)
            } catch {
                failure = error
            }
            perform {
                landRoutedPublish(request, streamId: streamId, leg: leg, failure: failure, sessionId: sessionId,
                                  connectionId: connectionId, requestId: requestId, peer: peer)
            }
        }
    }

    /// The second, locked step of a routed publish: records the stream and answers, or
    /// answers the failure; a leg whose connection went meanwhile is closed.
    private func landRoutedPublish(_ request: PublishRequest, streamId: String, leg: WireMediaLeg?, failure: MediaError?,
                                   sessionId: String, connectionId: String, requestId: Int, peer: any WebSocketPeer) {
        pendingLegs -= 1
        let media = media
        guard var session = sessions.removeValue(forKey: sessionId) else {
            if leg != nil { afterUnlock { media.removePublisher(streamId: streamId) } }
            return
        }
        defer { sessions[sessionId] = session }
        guard session.connections[connectionId] != nil else {
            if leg != nil { afterUnlock { media.removePublisher(streamId: streamId) } }
            return
        }
        session.connections[connectionId]!.pendingStreams -= 1
        if let failure {
            log.log(.error, "media.publisherFailed", session: sessionId, connection: connectionId, ["error": "\(failure)"])
            send(.error(ErrorReply(code: 1500, message: "unable to publish: the media router could not open a leg (\(failure))")),
                 requestId: requestId, to: peer)
            return
        }
        land(request, streamId: streamId, leg: leg, connectionId: connectionId, in: &session) { send($0, requestId: requestId, to: peer) }
    }

    /// Records a published stream, answers `published` and tells the others.
    func land(_ request: PublishRequest, streamId: String, leg: WireMediaLeg?, connectionId: String,
                      in session: inout SessionRecord, reply: (ServerMessage) -> Void) {
        let muted = session.muteAll
        // Relayed sessions: only a stream the router got a leg for (a browser's) is routed.
        let routed = !session.relayed || leg != nil
        if muted, routed { media.setAudioMuted(streamId: streamId, true) }
        let wire = WireStream(streamId: streamId, connectionId: connectionId, name: request.name, hasAudio: request.hasAudio,
                              hasVideo: request.hasVideo, videoWidth: request.videoWidth, videoHeight: request.videoHeight,
                              videoType: request.videoType, creationTime: Self.nowMilliseconds())
        session.streams[streamId] = StreamRecord(wire: wire, muted: muted,
                                                 layoutClassList: session.connections[connectionId]!.layoutClassList,
                                                 relayedLeg: routed ? nil : request.relayedLeg,
                                                 subscriberAudioFallback: request.subscriberAudioFallback ?? true, routed: routed)
        session.streamOrder.append(streamId)
        archiveStreamPublished(streamId, in: &session)
        if routed { subscriberAudioFallbackConfigured(streamId: streamId, enabled: request.subscriberAudioFallback ?? true) }
        session.connections[connectionId]!.streams.append(streamId)
        reply(.published(PublishedReply(stream: wire, media: leg, muted: muted)))
        broadcast(.streamCreated(wire), in: session, except: connectionId)
        log.log(.info, "stream.created", session: session.id, connection: connectionId, ["stream": streamId, "muted": String(muted)])
    }

    private func subscribe(_ request: SubscribeRequest, me: ConnectionRecord, session: inout SessionRecord, requestId: Int,
                           peer: any WebSocketPeer, reply: (ServerMessage) -> Void, fail: (Int, String) -> Void) {
        guard me.subscriptions.count + me.pendingSubscriptions < configuration.limits.subscriptionsPerConnection else {
            counters.limitRefused(.subscriptionsPerConnection)
            return fail(1605, "unable to subscribe: this connection has \(configuration.limits.subscriptionsPerConnection) subscriptions, its limit")
        }
        let subscriberId = Self.newID()
        // A relayed publisher's own leg (the router carries a browser's stream like a routed one).
        if session.streams[request.streamId]?.routed == false {
            guard request.sdp != true else {
                return fail(1604, "unable to subscribe: a browser cannot receive a native publisher's stream in a relayed session yet; use a routed session")
            }
            // The publisher's own socket, with keys only this subscriber gets.
            let leg = session.streams[request.streamId].flatMap {
                Self.relayedSubscriberLeg(of: $0, taken: $0.relayedReceivers.union($0.revokedReceivers))
            }
            if let ssrc = leg?.receiverSSRC { session.streams[request.streamId]!.relayedReceivers.insert(ssrc) }
            land(SubscriptionRecord(id: subscriberId, streamId: request.streamId, connectionId: me.id,
                                    audio: request.subscribeToAudio, video: request.subscribeToVideo,
                                    relayedReceiverSSRC: leg?.receiverSSRC, routed: false), leg: leg, in: &session, reply: reply)
            // A subscriber without preferences lifts a relayed publisher's limit.
            relayedPreferencesChanged(streamId: request.streamId, in: &session)
            return
        }
        if request.sdp == true {  // a browser: an SDP offer now, its leg once it answers
            return browserSubscribe(request, me: me, session: &session, requestId: requestId, peer: peer)
        }
        if request.mediaAtProxy == true, let node = peers[peer.id]?.forwardedBy {  // the proxying node (mark verified) serves the media
            return landMediaAtProxy(request, subscriberId: subscriberId, node: node, connectionId: me.id, in: &session, reply: reply)
        }
        guard mediaSocketsHaveRoom else {
            counters.limitRefused(.mediaSockets)
            return fail(1605, "unable to subscribe: the router has \(configuration.limits.mediaSockets) media sockets open, its limit")
        }
        // The leg (socket, buffers, SRTP) is opened once the lock is released; the
        // reservation keeps the limits honest meanwhile.
        session.connections[me.id]!.pendingSubscriptions += 1
        pendingLegs += 1
        let record = SubscriptionRecord(id: subscriberId, streamId: request.streamId, connectionId: me.id,
                                        audio: request.subscribeToAudio, video: request.subscribeToVideo)
        let sessionId = session.id
        afterUnlock { [self] in
            var leg: WireMediaLeg?
            var failure: MediaError?
            do throws(MediaError) {
                leg = try media.addSubscriber(subscriberId: subscriberId, streamId: request.streamId,
                                              audio: request.subscribeToAudio, video: request.subscribeToVideo,
                                              transport: request.transport)
            } catch {
                failure = error
            }
            perform { landRoutedSubscription(record, leg: leg, failure: failure, sessionId: sessionId, requestId: requestId, peer: peer) }
        }
    }

    /// The second, locked step of a routed subscribe: records the subscription and answers,
    /// or answers the failure; a leg whose connection or stream went meanwhile is closed.
    private func landRoutedSubscription(_ record: SubscriptionRecord, leg: WireMediaLeg?, failure: MediaError?, sessionId: String,
                                        requestId: Int, peer: any WebSocketPeer) {
        pendingLegs -= 1
        guard var session = sessions.removeValue(forKey: sessionId) else {
            if leg != nil { removeLegLater(record.id) }
            return
        }
        defer { sessions[sessionId] = session }
        guard session.connections[record.connectionId] != nil else {
            if leg != nil { removeLegLater(record.id) }
            return
        }
        session.connections[record.connectionId]!.pendingSubscriptions -= 1
        func fail(_ text: String) { send(.error(ErrorReply(code: 1604, message: text)), requestId: requestId, to: peer) }
        if let failure {
            log.log(.error, "media.subscriberFailed", session: sessionId, connection: record.connectionId, ["error": "\(failure)"])
            return fail("unable to subscribe: the media router could not open a leg (\(failure))")
        }
        guard let leg, session.streams[record.streamId] != nil else {
            removeLegLater(record.id)
            return fail("unable to subscribe: stream \(record.streamId) left the session")
        }
        land(record, leg: leg, in: &session) { send($0, requestId: requestId, to: peer) }
    }

    /// Records a subscription and sends the `subscribed` reply.
    func land(_ record: SubscriptionRecord, leg: WireMediaLeg?, in session: inout SessionRecord, reply: (ServerMessage) -> Void) {
        session.subscriptions[record.id] = record
        session.connections[record.connectionId]!.subscriptions.insert(record.id)
        reply(.subscribed(SubscribedReply(subscriberId: record.id, streamId: record.streamId, media: leg)))
    }
}
