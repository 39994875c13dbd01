/// The WebSocket side of the service thread: frames in (messages to the handler, pings
/// answered, the close handshake, violations closed with their code and counted) and the
/// peer's queued messages out.
extension ServerCore {
    /// Handles every complete frame buffered on `connection`.
    func processFrames(_ connection: ServerConnection) {
        while connection.isOpen && connection.phase == .webSocket && !connection.closeAfterFlush,
              let event = connection.frames?.next() {
            switch event {
            case .text(let text):
                if let peer = connection.peer, !peer.closeReported, !connection.sentClose {
                    handler?.webSocketReceived(peer, text: text)
                }
            case .binary(let bytes):
                if let peer = connection.peer, !peer.closeReported, !connection.sentClose {
                    handler?.webSocketReceived(peer, binary: bytes)
                }
            case .ping(let payload):
                if !connection.sentClose { WebSocketFrameWriter.appendControl(.pong, payload: payload, to: &connection.output) }
            case .pong:
                break
            case .close(let code, _):
                // §5.5.1: answer with the same code (none if it sent none), then close; when
                // we had sent ours first this was the answer.
                if !connection.sentClose {
                    WebSocketFrameWriter.appendClose(code: code, reason: "", to: &connection.output)
                    connection.sentClose = true
                }
                connection.closeAfterFlush = true
                connection.armCloseDeadline(monotonicNanoseconds() + Self.closeDeadlineNanoseconds)
            case .failure(let failure):
                if failure.kind == .unmasked { counters.unmaskedFrames.add(1, ordering: .relaxed) }
                counters.webSocketProtocolErrors.add(1, ordering: .relaxed)
                if !connection.sentClose {
                    WebSocketFrameWriter.appendClose(code: failure.code, reason: failure.reason, to: &connection.output)
                    connection.sentClose = true
                }
                connection.closeAfterFlush = true
                connection.armCloseDeadline(monotonicNanoseconds() + Self.closeDeadlineNanoseconds)
            }
        }
        if connection.isOpen && connection.pendingOutput >= Self.outputHighWater { connection.readPaused = true }
    }

    /// Moves the peer's queued messages (and then its close frame) into the output while
    /// the output has room.
    func pump(_ connection: ServerConnection) {
        guard let peer = connection.peer, connection.isOpen, !connection.sentClose, !connection.closeAfterFlush else { return }
        while connection.pendingOutput < Self.outputHighWater {
            switch peer.outgoing.withLock({ $0.takeNext() }) {
            case .message(let text, _):
                WebSocketFrameWriter.appendText(text, to: &connection.output)
            case .close(let code, let reason):
                WebSocketFrameWriter.appendClose(code: code, reason: reason, to: &connection.output)
                connection.sentClose = true
                connection.armCloseDeadline(monotonicNanoseconds() + Self.closeDeadlineNanoseconds)
                return
            case .nothing:
                return
            }
        }
    }

    /// Peers whose queue changed or that were vouched for, from other threads.
    func wokenUp() {
        let peers = wakeList.take()
        for peer in peers {
            let closing = peer.outgoing.withLock { queue in
                queue.scheduled = false
                return queue.closeRequest != nil
            }
            guard let connection = peer.connection, connection.isOpen else { continue }
            if peer.countedUnauthenticated && peer.authenticated.load(ordering: .acquiring) {
                unauthenticated.remove(peer)
                connection.setDeadline(nil)
            }
            // A peer that stopped reading never takes its close frame: it is dropped then.
            if closing { connection.armCloseDeadline(monotonicNanoseconds() + Self.closeDeadlineNanoseconds) }
            settle(connection)
        }
    }
}
