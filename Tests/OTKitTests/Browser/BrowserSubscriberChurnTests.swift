import Foundation
import OTMedia
import OTRouter
import OTSignaling
import OTTestSupport
import Testing
@testable import OTKit

/// Issue 16 acceptance (g): while a headless Chromium tab publishes through the router's
/// edge, 20 native subscribers join one by one and then leave one by one; no subscriber
/// sees a gap over 200 ms between decoded frames while the others join and leave (a leg
/// added or removed never stalls the stream's other legs). A machine without Chromium fails.
@Suite(.serialized) struct BrowserSubscriberChurnTests {
    static let project = ProjectCredentials(apiKey: "4822", apiSecret: "0123456789abcdef0123456789abcdef01234822")
    let kit = SessionTestKit(project: Self.project)
    static let subscribers = 20
    /// The longest pause between two decoded frames a subscriber may see (the fake camera
    /// sends one every 33 ms).
    static let allowedGapNanoseconds: UInt64 = 200_000_000

    @Test func twentyNativeSubscribersJoinAndLeaveWithoutStallingTheOthers() throws {
        try BrowserRig.run(kit, fps: 30) { rig in
            let (router, sessionId) = (rig.router, rig.sessionId)
            let client = try rig.tab(data: "browser")
            let streamId = try #require(try? client.publish("{resolution: '320x240', frameRate: 30}").get())

            let recorder = DelegateRecorder()
            let native = try kit.joinSeeing(streamId, router, sessionId, recorder)
            defer { native.disconnect() }
            let stream = try #require(native.streams[streamId])

            // Join one by one: each must decode before the next joins.
            var legs: [(subscriber: OTSubscriber, render: GapRender)] = []
            for index in 0..<Self.subscribers {
                let subscriber = try #require(OTSubscriber(stream: stream, delegate: recorder))
                subscriber.subscribeToAudio = false  // 20 Opus decoders add nothing to the claim
                let render = GapRender()
                subscriber.videoRender = render
                try native.subscribe(subscriber)
                #expect(recorder.wait(30) { _ in render.frames >= 10 }, "subscriber \(index) decodes")
                render.startMeasuring()  // from its 10th frame: its keyframe wait is not a gap
                legs.append((subscriber, render))
            }
            Thread.sleep(forTimeInterval: 0.5)
            // Leave one by one, the first joined first: each still-joined subscriber is
            // measured until it leaves.
            for leg in legs {
                leg.render.stopMeasuring()
                try native.unsubscribe(leg.subscriber)
                Thread.sleep(forTimeInterval: 0.2)
            }
            let gaps = legs.map { $0.render.longestGapNanoseconds }
            let measured = legs.map { $0.render.measuredFrames }
            print("BrowserSubscriberChurn: longest gaps ms \(gaps.map { $0 / 1_000_000 }), frames measured \(measured)")
            for (index, gap) in gaps.enumerated() {
                #expect(gap <= Self.allowedGapNanoseconds, "subscriber \(index): a \(gap / 1_000_000) ms gap while others joined and left")
            }
            // The measurement had something to measure: the first subscriber was there for
            // every join and leave.
            #expect(measured[0] >= 100, "the first subscriber decoded \(measured[0]) frames during the churn")
        }
    }
}

/// Counts decoded frames and, while measuring, the longest pause between two of them.
final class GapRender: OTVideoRender, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var measuring = false
    private var last: UInt64 = 0
    private var longest: UInt64 = 0
    private var measuredCount = 0

    /// Frames rendered so far.
    var frames: Int { lock.withLock { count } }
    /// The longest pause seen while measuring, nanoseconds.
    var longestGapNanoseconds: UInt64 { lock.withLock { longest } }
    /// Frames rendered while measuring.
    var measuredFrames: Int { lock.withLock { measuredCount } }

    /// Starts measuring pauses from now.
    func startMeasuring() { lock.withLock { measuring = true; last = MonotonicClock.nanoseconds() } }
    /// Stops measuring, counting the pause up to now.
    func stopMeasuring() {
        let now = MonotonicClock.nanoseconds()
        lock.withLock {
            if measuring { longest = max(longest, now - last) }
            measuring = false
        }
    }

    func renderVideoFrame(_ frame: OTVideoFrame) {
        let now = MonotonicClock.nanoseconds()
        lock.withLock {
            count += 1
            guard measuring else { return }
            longest = max(longest, now - last)
            last = now
            measuredCount += 1
        }
    }
}
