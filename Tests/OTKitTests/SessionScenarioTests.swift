import Foundation
import OTMedia
import OTNet
import OTRouter
import OTSignaling
import Testing
@testable import OTKit

/// Issue 4's acceptance scenario through the real embedded router (WebSocket signaling,
/// the SFU forwarding SRTP): a moderator M, publishers P1 and P2 (test pattern + the
/// custom device's tone) and a subscriber-role client S go through connect, publish,
/// subscribe (decoded frame numbers and the tone checked), signals (all, one, too long,
/// bad type, REST), force mute (all with an exclusion, one, a late publisher P3 joining
/// muted, disable), archive start/stop (REST; a client L joining while it runs), force
/// disconnect and disconnect. Every client's delegate calls are compared exactly, in
/// order, after every step.
@Suite(.serialized)
struct SessionScenarioTests {
    static let project = ProjectCredentials(apiKey: "4712", apiSecret: "0123456789abcdef0123456789abcdef01234567")
    private let kit = SessionTestKit(project: Self.project)

    @Test func moderatorTwoPublishersAndASubscriberThroughAWholeSession() throws {
        try AudioDeviceTestLock.run { try scenario() }
    }

    private func join(_ name: String, _ role: Role, _ router: Router, _ sessionId: String) throws -> ScenarioParticipant {
        let recorder = DelegateRecorder()
        let session = try kit.makeSession(router, sessionId, recorder)
        try session.connect(withToken: try kit.token(sessionId, role, data: "name=\(name)"))
        return ScenarioParticipant(name, recorder: recorder, session: session)
    }

    private func scenario() throws {
        // One custom audio device for the process: every publisher captures its 660 Hz
        // tone; only M's subscriber renders into it (S subscribes without audio).
        let device = ToneLoopDevice(frequency: 660)
        OTAudioDeviceManager.setAudioDevice(device)
        defer { OTAudioDeviceManager.setAudioDevice(nil) }
        let media = try MediaRouter()
        let router = try kit.startRouter(media: media)
        defer { router.stop() }
        let rest = RouterREST(router: router, project: Self.project)
        let sessionId = try router.createSession(apiKey: Self.project.apiKey)

        // MARK: Connect M, P1, P2, S in turn: each hears of those already there, never of itself.
        var everyone: [ScenarioParticipant] = []
        func checkAll(_ sourceLocation: SourceLocation = #_sourceLocation) {
            for participant in everyone { participant.check(sourceLocation: sourceLocation) }
        }
        /// A participant without a stream disconnects: it hears didDisconnect, the others its connection go.
        func leave(_ participant: ScenarioParticipant, _ sourceLocation: SourceLocation = #_sourceLocation) {
            participant.session.disconnect()
            participant.expect("didDisconnect")
            everyone.removeAll { $0 === participant }
            for other in everyone { other.expect("connectionDestroyed \(participant.id)") }
            participant.check(sourceLocation: sourceLocation)
            checkAll(sourceLocation)
        }
        func connect(_ name: String, _ role: Role) throws -> ScenarioParticipant {
            let participant = try join(name, role, router, sessionId)
            #expect(participant.recorder.wait { $0.contains("didConnect") }, "\(name) connects")
            participant.expect("didConnect")
            participant.expect(everyone.map { "connectionCreated \($0.id)" })
            for other in everyone { other.expect("connectionCreated \(participant.id)") }
            everyone.append(participant)
            return participant
        }
        let m = try connect("M", .moderator)
        let p1 = try connect("P1", .publisher)
        let p2 = try connect("P2", .publisher)
        let s = try connect("S", .subscriber)
        checkAll()
        #expect(Set(everyone.map(\.id)).count == 4)
        #expect(s.session.connection?.data == "name=S")
        #expect(m.session.capabilities?.canForceMute == true && p1.session.capabilities?.canForceMute == false)
        #expect(s.session.capabilities?.canPublish == false && s.session.capabilities?.canSubscribe == true)

        // MARK: P1 and P2 publish: their own stream goes to the publisher delegate, the others get streamCreated.
        func publishAndAnnounce(_ participant: ScenarioParticipant, _ name: String) throws -> (OTPublisherKit, String) {
            let (publisher, streamId) = try kit.publishPattern(participant.session, participant.recorder, name: name,
                                                              width: 160, height: 120, fps: 30)
            participant.expect("publisher streamCreated \(streamId)")
            for other in everyone where other !== participant { other.expect("streamCreated \(streamId)") }
            checkAll()
            return (publisher, streamId)
        }
        let (publisher1, s1) = try publishAndAnnounce(p1, "P1")
        let (publisher2, s2) = try publishAndAnnounce(p2, "P2")
        let stream1 = try #require(s.session.streams[s1])
        #expect(stream1.name == "P1" && stream1.hasAudio && stream1.hasVideo)
        #expect(stream1.videoDimensions == OTVideoDimensions(width: 160, height: 120))
        #expect(stream1.connection.connectionId == p1.id)
        #expect(s.session.streams.keys.sorted() == [s1, s2].sorted())
        #expect(p1.session.streams.keys.sorted() == [s2], "a publisher's own stream is not among the others'")

        // MARK: S subscribes to both (video only): increasing frame numbers from each.
        func subscribe(_ participant: ScenarioParticipant, _ streamId: String, audio: Bool) throws -> (OTSubscriber, FrameNumberRender) {
            let subscriberStream = try #require(participant.session.streams[streamId])
            let subscriber = try #require(OTSubscriber(stream: subscriberStream, delegate: participant.recorder))
            subscriber.subscribeToAudio = audio
            let render = FrameNumberRender()
            subscriber.videoRender = render
            try participant.session.subscribe(subscriber)
            participant.expect("subscriber connected")
            participant.check()
            return (subscriber, render)
        }
        let (_, renderS1) = try subscribe(s, s1, audio: false)
        let (_, renderS2) = try subscribe(s, s2, audio: false)
        for render in [renderS1, renderS2] {
            #expect(s.recorder.wait(20) { _ in render.seen.count >= 20 }, "frames decoded")
            let numbers = render.seen
            #expect(numbers.count >= 20)
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frame numbers increase")
        }

        // MARK: M subscribes to P1 and hears the tone.
        let (subscriberM1, renderM1) = try subscribe(m, s1, audio: true)
        #expect(m.recorder.wait(20) { _ in device.renderedSamples.count >= 48_000 * 2 && renderM1.seen.count >= 10 })
        let played = Array(device.renderedSamples.suffix(48_000))
        #expect(AudioAnalysis.rms(played) > 1000, "sound, not silence")
        #expect(abs((AudioAnalysis.dominantFrequency(samples: played, sampleRate: 48_000) ?? 0) - 660) < 5, "the tone (jitter-buffer concealment under load can shift the estimate a little)")
        #expect((subscriberM1.counters?.audio.packets ?? 0) > 0)
        checkAll()

        // MARK: Signals.
        try m.session.signal(type: "chat", string: "hello all")
        for participant in everyone { participant.expect("signal chat from \(m.id): hello all") }
        checkAll()
        try p1.session.signal(type: "direct", string: "only S", connection: OTConnection(connectionId: s.id, creationTime: Date(), data: nil))
        s.expect("signal direct from \(p1.id): only S")
        checkAll()
        func code(_ body: () throws -> Void) -> Int32? {
            do { try body(); return nil } catch { return (error as? OTError)?.code ?? -1 }
        }
        #expect(code { try p2.session.signal(type: "chat", string: String(repeating: "x", count: 8193)) } == 1413)
        #expect(code { try p2.session.signal(type: "chat", string: String(repeating: "x", count: 8192)) } == nil, "8192 bytes is the limit")
        for participant in everyone { participant.expect("signal chat from \(p2.id): \(String(repeating: "x", count: 8192))") }
        #expect(code { try p2.session.signal(type: String(repeating: "t", count: 129), string: "x") } == 1461)
        #expect(code { try p2.session.signal(type: "bad type!", string: "x") } == 1461)
        checkAll()  // a client's signal is sent asynchronously: let it land before the REST one
        let restSignal = try rest.post("session/\(sessionId)/signal", ["type": "rest", "data": "from the server"])
        #expect(restSignal.status == 204)
        for participant in everyone { participant.expect("signal rest from nil: from the server") }
        checkAll()

        // MARK: Force mute all except P2: P1 is muted (publisher delegate first, as the router sends it), everyone hears muteForced(true).
        let stream2AtM = try #require(m.session.streams[s2])
        try m.session.forceMuteAll(excluding: [stream2AtM])
        p1.expect("publisher muteForced")
        for participant in everyone { participant.expect("muteForced true") }
        checkAll()
        #expect(!publisher1.publishAudio)
        #expect(publisher2.publishAudio, "the excluded stream is not muted")
        #expect(m.recorder.wait { _ in m.session.streams[s1]?.hasAudio == false }, "the mute is announced as a hasAudio change")
        #expect(m.session.streams[s2]?.hasAudio == true)
        try m.session.forceMuteStream(stream2AtM)
        p2.expect("publisher muteForced")
        checkAll()
        #expect(p2.recorder.wait { _ in !publisher2.publishAudio })

        // MARK: A late publisher P3 joins while mute-all is active: it starts muted and the router forwards none of its audio.
        let p3 = try connect("P3", .publisher)
        p3.expect(["streamCreated \(s1)", "streamCreated \(s2)"])
        checkAll()
        let (publisher3, s3) = try kit.publishPattern(p3.session, p3.recorder, name: "P3", width: 160, height: 120, fps: 30)
        p3.expect("publisher streamCreated \(s3)", "publisher muteForced")
        for other in everyone where other !== p3 { other.expect("streamCreated \(s3)") }
        checkAll()
        #expect(!publisher3.publishAudio)
        let (subscriberM3, renderM3) = try subscribe(m, s3, audio: true)
        #expect(m.recorder.wait(20) { _ in renderM3.seen.count >= 20 }, "P3's video flows")
        let p3AudioSent = publisher3.counters?.audio.packets ?? 0
        #expect(p3AudioSent == 0, "published into a muted session, P3's encoder never saw an audio frame")
        #expect(subscriberM3.counters?.audio.packets == 0, "no audio of P3 reaches M")
        #expect((subscriberM3.counters?.video.packets ?? 0) > 0)
        // The router agrees: nothing of P3's audio came to drop.
        #expect(m.recorder.wait(5) { _ in media.counters(streamId: s3)?.mutedAudioDropped == p3AudioSent },
                "\(String(describing: media.counters(streamId: s3))) vs \(p3AudioSent) sent")
        #expect(publisher3.counters?.audio.packets == p3AudioSent, "P3's encoder sends no audio")
        p3.session.disconnect()
        p3.expect("publisher streamDestroyed \(s3)", "didDisconnect")
        everyone.removeAll { $0 === p3 }
        for participant in everyone { participant.expect("streamDestroyed \(s3)", "connectionDestroyed \(p3.id)") }
        p3.check()
        checkAll()

        // MARK: Disable force mute: everyone hears muteForced(false); audio stays off until the publishers unmute.
        try m.session.disableForceMute()
        for participant in everyone { participant.expect("muteForced false") }
        checkAll()
        #expect(!publisher1.publishAudio && !publisher2.publishAudio)

        // MARK: Archive over REST: everyone, and a client L joining while it runs, gets archiveStarted with the REST reply's id.
        let started = try rest.post("archive", ["sessionId": sessionId, "name": "scenario"])
        #expect(started.status == 200)
        let archiveId = try #require(started.body["id"] as? String)
        #expect(started.body["status"] as? String == "started")
        for participant in everyone { participant.expect("archiveStarted \(archiveId) name=scenario") }
        checkAll()
        let l = try connect("L", .subscriber)
        l.expect(["streamCreated \(s1)", "streamCreated \(s2)", "archiveStarted \(archiveId) name=scenario"])
        checkAll()
        leave(l)
        let stopped = try rest.post("archive/\(archiveId)/stop")
        #expect(stopped.status == 200 && stopped.body["status"] as? String == "stopped")
        for participant in everyone { participant.expect("archiveStopped \(archiveId)") }
        checkAll()

        // MARK: M force-disconnects P2: P2's stream ends and it disconnects; the others see its stream then its connection go.
        try m.session.forceDisconnect(OTConnection(connectionId: p2.id, creationTime: Date(), data: nil))
        p2.expect("publisher streamDestroyed \(s2)", "didDisconnect")
        everyone.removeAll { $0 === p2 }
        for participant in everyone { participant.expect("streamDestroyed \(s2)", "connectionDestroyed \(p2.id)") }
        p2.check()
        checkAll()
        #expect(p2.session.sessionConnectionStatus == .notConnected && p2.session.connection == nil)
        #expect(s.session.streams.keys.sorted() == [s1])
        let framesBefore = renderS1.seen.count
        #expect(s.recorder.wait(10) { _ in renderS1.seen.count >= framesBefore + 10 }, "P1's video still flows to S")

        // MARK: Everyone leaves: S, then P1, then M.
        leave(s)
        p1.session.disconnect()
        p1.expect("publisher streamDestroyed \(s1)", "didDisconnect")
        everyone.removeAll { $0 === p1 }
        m.expect("streamDestroyed \(s1)", "connectionDestroyed \(p1.id)")
        p1.check()
        checkAll()
        m.session.disconnect()
        m.expect("didDisconnect")
        m.check()
        for participant in [m, p1, p2, s] { #expect(participant.session.sessionConnectionStatus == .notConnected) }
    }
}
