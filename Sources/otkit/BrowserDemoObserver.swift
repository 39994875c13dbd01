import Foundation
import Glibc
import OTKit
import Synchronization

/// `otkit demo --browser`'s delegate for the native session, its publisher and one
/// subscriber per browser stream: it prints each browser that joins or leaves and each
/// chat line, queues browser streams for the main loop to subscribe, and counts what the
/// native side decodes from each (frames via the render callback, audio packets via the
/// stats). Called on the demo's apiQueue and the render threads.
final class BrowserDemoObserver: OTSessionDelegate, OTPublisherKitDelegate, OTSubscriberKitDelegate,
    OTSubscriberKitNetworkStatsDelegate, @unchecked Sendable {
    /// What the native side got from one browser stream.
    struct Received {
        var name: String
        var connection: String
        var frames = 0
        var width = 0
        var height = 0
        var audioPackets: UInt64 = 0
        var videoPackets: UInt64 = 0
        var failure: String?
    }

    struct State {
        var joined = 0
        var present: Set<String> = []
        var pending: [OTStream] = []
        var streams: [String: Received] = [:]
        var chat = 0
        var failure: String?
    }

    private let state = Mutex(State())
    /// The native session's own connection id, so its own connection is not a browser.
    let ownConnection = Mutex<String?>(nil)
    /// Writes one line to standard output (the demo's unbuffered writer).
    let say: @Sendable (String) -> Void

    init(say: @escaping @Sendable (String) -> Void) { self.say = say }

    /// A copy of the counts so far.
    func snapshot() -> State { state.withLock { $0 } }

    /// Browser streams announced since the last call (the caller subscribes to them).
    func takePending() -> [OTStream] { state.withLock { let streams = $0.pending; $0.pending = []; return streams } }

    /// Polls `done` for up to 15 s; throws naming `what` when it does not happen.
    func wait(_ what: String, _ done: () -> Bool) throws {
        for _ in 0..<300 {
            if done() { return }
            if let failure = snapshot().failure { throw DemoError(failure) }
            usleep(50_000)
        }
        throw DemoError("timed out waiting for \(what)")
    }

    private func fail(_ text: String) { state.withLock { if $0.failure == nil { $0.failure = text } } }
    private func isOwn(_ connection: OTConnection?) -> Bool {
        guard let connection else { return false }
        return ownConnection.withLock { $0 == connection.connectionId }
    }
    private static func label(_ connection: OTConnection?) -> String {
        guard let connection else { return "the server" }
        return "\(connection.connectionId) (\(connection.data.map { "\"\($0.prefix(64))\"" } ?? "no data"))"
    }

    // MARK: OTSessionDelegate

    func sessionDidConnect(_ session: OTSession) {}
    func sessionDidDisconnect(_ session: OTSession) {}
    func session(_ session: OTSession, didFailWithError error: OTError) { fail("session: \(error)") }

    func session(_ session: OTSession, connectionCreated connection: OTConnection) {
        guard !isOwn(connection) else { return }
        state.withLock { $0.joined += 1; $0.present.insert(connection.connectionId) }
        say("browser joined: connection \(Self.label(connection))\n")
    }

    func session(_ session: OTSession, connectionDestroyed connection: OTConnection) {
        guard !isOwn(connection) else { return }
        state.withLock { _ = $0.present.remove(connection.connectionId) }
        say("browser left: connection \(connection.connectionId)\n")
    }

    func session(_ session: OTSession, streamCreated stream: OTStream) {
        guard !isOwn(stream.connection) else { return }
        let received = Received(name: stream.name ?? "", connection: stream.connection.connectionId)
        state.withLock {
            $0.streams[stream.streamId] = received
            $0.pending.append(stream)
        }
        say("browser stream: \(stream.streamId) \"\(stream.name ?? "")\" from \(stream.connection.connectionId) "
            + "(audio \(stream.hasAudio ? "on" : "off"), video \(stream.hasVideo ? "on" : "off")); subscribing\n")
    }

    func session(_ session: OTSession, streamDestroyed stream: OTStream) {
        guard !isOwn(stream.connection) else { return }
        let frames = state.withLock { $0.streams[stream.streamId]?.frames ?? 0 }
        say("browser stream ended: \(stream.streamId), \(frames) frames decoded from it\n")
    }

    func session(_ session: OTSession, receivedSignalType type: String?, from connection: OTConnection?, with string: String?) {
        guard type == "chat", !isOwn(connection) else { return }
        state.withLock { $0.chat += 1 }
        say("chat from \(Self.label(connection)): \(String((string ?? "").prefix(200)))\n")
    }

    // MARK: OTPublisherKitDelegate

    func publisher(_ publisher: OTPublisherKit, didFailWithError error: OTError) { fail("publisher: \(error)") }

    // MARK: OTSubscriberKitDelegate (one per browser stream; a failed one is noted, the demo goes on)

    func subscriberDidConnect(toStream subscriber: OTSubscriberKit) {}

    func subscriber(_ subscriber: OTSubscriberKit, didFailWithError error: OTError) {
        guard let id = subscriber.stream?.streamId else { return }
        state.withLock { $0.streams[id]?.failure = "\(error)" }
        say("subscribing to browser stream \(id) failed: \(error)\n")
    }

    func subscriber(_ subscriber: OTSubscriberKit, videoNetworkStatsUpdated stats: OTSubscriberKitVideoNetworkStats) {
        guard let id = subscriber.stream?.streamId else { return }
        state.withLock { $0.streams[id]?.videoPackets = stats.videoPacketsReceived }
    }

    func subscriber(_ subscriber: OTSubscriberKit, audioNetworkStatsUpdated stats: OTSubscriberKitAudioNetworkStats) {
        guard let id = subscriber.stream?.streamId else { return }
        state.withLock { $0.streams[id]?.audioPackets = stats.audioPacketsReceived }
    }

    /// A render that counts the frames decoded from stream `streamId`.
    func render(for streamId: String) -> any OTVideoRender { FrameCounter(observer: self, streamId: streamId) }

    fileprivate func decoded(_ streamId: String, width: Int, height: Int) {
        state.withLock {
            $0.streams[streamId]?.frames += 1
            $0.streams[streamId]?.width = width
            $0.streams[streamId]?.height = height
        }
    }
}

/// Counts one browser stream's decoded frames into the observer.
private final class FrameCounter: OTVideoRender, Sendable {
    let observer: BrowserDemoObserver
    let streamId: String
    init(observer: BrowserDemoObserver, streamId: String) {
        self.observer = observer
        self.streamId = streamId
    }
    func renderVideoFrame(_ frame: OTVideoFrame) {
        observer.decoded(streamId, width: frame.videoFrame.width, height: frame.videoFrame.height)
    }
}
