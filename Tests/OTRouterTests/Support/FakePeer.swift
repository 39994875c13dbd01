import Foundation
import OTNet
import OTSignaling
import Synchronization

/// A WebSocketPeer that records what the router sends it (decoded) and whether it was closed.
final class FakePeer: WebSocketPeer {
    private static let counter = Atomic<UInt64>(0)
    let id: UInt64 = FakePeer.counter.add(1, ordering: .relaxed).newValue
    let remoteAddress: String
    private let state = Mutex<(messages: [(ServerMessage, Int?)], closed: (UInt16, String)?)>(([], nil))

    /// A peer that seems to come from `remoteAddress` (`host:port`).
    init(remoteAddress: String = "127.0.0.1:9") { self.remoteAddress = remoteAddress }

    @discardableResult func send(_ text: String) -> Bool {
        guard let decoded = try? SignalingCodec.decodeServerMessage(text) else {
            fatalError("the router sent an undecodable message: \(text)")
        }
        return state.withLock { state in
            guard state.closed == nil else { return false }
            state.messages.append((decoded.message, decoded.requestId))
            return true
        }
    }

    func close(code: UInt16, reason: String) {
        state.withLock { if $0.closed == nil { $0.closed = (code, reason) } }
    }

    /// Every message received so far.
    var messages: [ServerMessage] { state.withLock { $0.messages.map(\.0) } }
    /// Events only (no request id).
    var events: [ServerMessage] { state.withLock { $0.messages.filter { $0.1 == nil }.map(\.0) } }
    /// The reply to `requestId`.
    func reply(to requestId: Int) -> ServerMessage? { state.withLock { $0.messages.first { $0.1 == requestId }?.0 } }
    var isClosed: Bool { state.withLock { $0.closed != nil } }
    /// Forgets what was received (to look at what comes next).
    func clear() { state.withLock { $0.messages.removeAll() } }
}
