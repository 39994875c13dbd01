import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// What issue 5's acceptance tests share: a router with the real SFU the test can ask
/// for per-leg status, one session per participant (each through its own impairment
/// proxies when asked, so one participant's network can be impaired alone), and helpers
/// that read rates and frame-number gaps from counters.
final class AcceptanceRig {
    /// One OTKit client: its session, delegate recorder and (optional) impaired path.
    struct Participant {
        let session: OTSession
        let recorder: DelegateRecorder
        let path: CutPath?
        /// The proxies in front of this client's media legs (nil: direct).
        var proxies: MediaProxies? { path?.proxies }
    }

    let kit: SessionTestKit
    let media: MediaRouter
    let router: Router
    let sessionId: String
    private var participants: [Participant] = []

    /// `e2ee`: the session is created through `POST /session/create` with `e2ee=true`.
    init(project: ProjectCredentials, relayed: Bool = false, e2ee: Bool = false) throws {
        kit = SessionTestKit(project: project)
        media = try MediaRouter()
        router = try kit.startRouter(media: media)
        if e2ee {
            let created = try RouterREST(router: router, project: project).createSession("p2p.preference=disabled&e2ee=true")
            sessionId = try #require(created.sessionId, "e2ee session create: \(created.status)")
        } else {
            sessionId = try router.createSession(apiKey: project.apiKey, relayed: relayed)
        }
    }

    /// Connects a new client (through proxies when `impaired`), expecting didConnect.
    func join(impaired: Bool, role: Role = .publisher, sourceLocation: SourceLocation = #_sourceLocation) throws -> Participant {
        let recorder = DelegateRecorder()
        let path = impaired ? try CutPath(router) : nil
        let session = try kit.makeSession(router, sessionId, recorder, via: path, sourceLocation: sourceLocation)
        let participant = Participant(session: session, recorder: recorder, path: path)
        participants.append(participant)
        try kit.connect(session, recorder, token: try kit.token(sessionId, role), sourceLocation: sourceLocation)
        return participant
    }

    /// Subscribes `participant` to `streamId` reading frame numbers; returns the
    /// subscriber, its render and its router-side id.
    func subscribe(_ participant: Participant, to streamId: String, configure: ((OTSubscriber) -> Void)? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) throws -> (subscriber: OTSubscriber, render: FrameNumberRender) {
        #expect(participant.recorder.wait { $0.contains("streamCreated \(streamId)") }, sourceLocation: sourceLocation)
        let stream = try #require(participant.session.streams[streamId], sourceLocation: sourceLocation)
        let subscriber = try #require(OTSubscriber(stream: stream, delegate: participant.recorder))
        let render = FrameNumberRender()
        subscriber.videoRender = render
        configure?(subscriber)
        try participant.session.subscribe(subscriber)
        #expect(participant.recorder.wait { $0.contains("subscriber connected") }, sourceLocation: sourceLocation)
        return (subscriber, render)
    }

    /// Disconnects everyone, then stops the proxies and the router.
    func stop() {
        for participant in participants { participant.session.disconnect() }
        for participant in participants { participant.recorder.wait { $0.last == "didDisconnect" } }
        for participant in participants { participant.path?.stop() }
        router.stop()
    }
}

/// Polls `condition` every 100 ms until it holds or `seconds` pass.
@discardableResult
func poll(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.1)
    }
    return condition()
}

/// Byte counters read at the start of a window; `bitrates` gives bits per second since.
struct CounterWindow {
    let start = Date()
    let values: [UInt64]

    init(_ values: [UInt64]) { self.values = values }

    /// Bits per second of each counter since the window started (same order).
    func bitrates(_ now: [UInt64]) -> [Double] {
        let seconds = max(0.001, Date().timeIntervalSince(start))
        return zip(values, now).map { Double($1 &- $0) * 8 / seconds }
    }

    /// Events per second of each counter since the window started.
    func rates(_ now: [UInt64]) -> [Double] {
        let seconds = max(0.001, Date().timeIntervalSince(start))
        return zip(values, now).map { Double($1 &- $0) / seconds }
    }
}

/// Samples a byte counter; gives the bit rate over the last few seconds.
final class RollingRate {
    private var samples: [(at: Date, bytes: UInt64)] = []
    private let read: () -> UInt64

    init(_ read: @escaping () -> UInt64) { self.read = read }

    /// Takes a sample now.
    func sample() { samples.append((Date(), read())) }

    /// Bits per second over the most recent `seconds` of samples (nil until the samples
    /// cover that long).
    func bitrate(over seconds: Double) -> Double? {
        guard let last = samples.last,
              let first = samples.last(where: { last.at.timeIntervalSince($0.at) >= seconds }) else { return nil }
        return Double(last.bytes &- first.bytes) * 8 / last.at.timeIntervalSince(first.at)
    }
}

/// Frame-number analysis of what a subscriber decoded (numbers are media time at the
/// source's frame period).
enum FrameGaps {
    /// The largest step between consecutive decoded frame numbers (1 = none missing).
    static func largestStep(_ numbers: [UInt32]) -> UInt32 {
        zip(numbers, numbers.dropFirst()).map { $1 > $0 ? $1 - $0 : 0 }.max() ?? 0
    }

    /// Distinct numbers decoded over the span from the first to the last, 0...1.
    static func decodedShare(_ numbers: [UInt32]) -> Double {
        guard let first = numbers.min(), let last = numbers.max(), last > first else { return 0 }
        return Double(Set(numbers).count) / Double(last - first + 1)
    }
}
