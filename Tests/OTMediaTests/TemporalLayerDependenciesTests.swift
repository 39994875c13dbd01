import Testing
@testable import OTMedia

/// The temporal-layer dependency rules, table-driven: a stream of frames, some lost or
/// skipped, and for each frame offered whether it may be decoded.
@Suite struct TemporalLayerDependenciesTests {
    typealias Frame = TemporalLayerDependencies.Frame

    /// One thing that happens to the tracker.
    enum Step: CustomStringConvertible {
        /// The frame is complete and next: expect this verdict.
        case offer(Frame, decodable: Bool)
        /// The frame is given up (some of its packets arrived).
        case giveUp(Frame)
        /// Frames vanished without a packet.
        case lostWhole
        /// The decoder refused a frame.
        case refused

        var description: String {
            switch self {
            case .offer(let f, let d): "offer(\(Self.name(f)), \(d))"
            case .giveUp(let f): "giveUp(\(Self.name(f)))"
            case .lostWhole: "lostWhole"
            case .refused: "refused"
            }
        }

        static func name(_ f: Frame) -> String {
            if f.isKeyframe { return "key \(f.tl0PicIdx.map(String.init) ?? "-")" }
            guard let tid = f.temporalLayer else { return "plain" }
            return "TL\(tid)\(f.layerSync ? "Y" : "")\(f.isNonReference ? "N" : "") \(f.tl0PicIdx.map(String.init) ?? "-")"
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var steps: [Step]
        /// Waiting for a keyframe at the end.
        var needsKeyframe: Bool
        var testDescription: String { name }
    }

    // This package's 3-layer pattern in period `p` (TL0PICIDX p): TL0, TL2 Y N, TL1 Y, TL2 N.
    static func key(_ p: UInt8) -> Frame { Frame(isKeyframe: true, temporalLayer: 0, layerSync: true, tl0PicIdx: p) }
    static func tl0(_ p: UInt8) -> Frame { Frame(temporalLayer: 0, tl0PicIdx: p) }
    static func tl2sync(_ p: UInt8) -> Frame { Frame(temporalLayer: 2, layerSync: true, tl0PicIdx: p, isNonReference: true) }
    static func tl1(_ p: UInt8) -> Frame { Frame(temporalLayer: 1, layerSync: true, tl0PicIdx: p) }
    static func tl2(_ p: UInt8) -> Frame { Frame(temporalLayer: 2, tl0PicIdx: p, isNonReference: true) }
    /// A whole period decoded.
    static func period(_ p: UInt8) -> [Step] {
        [.offer(tl0(p), decodable: true), .offer(tl2sync(p), decodable: true),
         .offer(tl1(p), decodable: true), .offer(tl2(p), decodable: true)]
    }
    /// Keyframe at TL0PICIDX 0, then the rest of period 0.
    static let start: [Step] = [.offer(key(0), decodable: true), .offer(tl2sync(0), decodable: true),
                                .offer(tl1(0), decodable: true), .offer(tl2(0), decodable: true)]

    static let cases: [Case] = [
        Case(name: "clean stream", steps: start + period(1) + period(2), needsKeyframe: false),
        Case(name: "deltas before the first keyframe are not decodable",
             steps: [.offer(tl2(0), decodable: false), .offer(tl0(1), decodable: false)] + [.offer(key(1), decodable: true)]
                 + [.offer(tl2sync(1), decodable: true)],
             needsKeyframe: false),
        Case(name: "a TL2 frame given up breaks nothing (N)",
             steps: start + [.offer(tl0(1), decodable: true), .giveUp(tl2sync(1)), .offer(tl1(1), decodable: true),
                             .offer(tl2(1), decodable: true)] + period(2),
             needsKeyframe: false),
        Case(name: "a TL2 frame lost whole costs the period's last TL2 frame",
             steps: start + [.offer(tl0(1), decodable: true), .lostWhole, .offer(tl1(1), decodable: true),
                             .offer(tl2(1), decodable: false)] + period(2),
             needsKeyframe: false),
        Case(name: "the last TL2 frame lost whole costs nothing more",
             steps: start + [.offer(tl0(1), decodable: true), .offer(tl2sync(1), decodable: true),
                             .offer(tl1(1), decodable: true), .lostWhole] + period(2),
             needsKeyframe: false),
        Case(name: "a TL1 frame given up costs the TL2 frame that reads it, the next period decodes",
             steps: start + [.offer(tl0(1), decodable: true), .offer(tl2sync(1), decodable: true), .giveUp(tl1(1)),
                             .offer(tl2(1), decodable: false)] + period(2),
             needsKeyframe: false),
        Case(name: "two upper frames lost whole in a row",
             steps: start + [.offer(tl0(1), decodable: true), .lostWhole, .lostWhole, .offer(tl2(1), decodable: false)]
                 + period(2),
             needsKeyframe: false),
        Case(name: "a TL0 frame given up waits for a keyframe",
             steps: start + [.giveUp(tl0(1)), .offer(tl2sync(1), decodable: false), .offer(tl1(1), decodable: false),
                             .offer(tl2(1), decodable: false), .offer(tl0(2), decodable: false),
                             .offer(key(3), decodable: true), .offer(tl2sync(3), decodable: true)],
             needsKeyframe: false),
        Case(name: "a TL0 frame lost whole shows in the next TL0PICIDX",
             steps: start + [.lostWhole, .offer(tl2sync(1), decodable: false), .offer(tl1(1), decodable: false)],
             needsKeyframe: true),
        Case(name: "TL0 and TL2 lost whole: the TL1 frame's TL0PICIDX is new",
             steps: start + [.lostWhole, .lostWhole, .offer(tl1(1), decodable: false), .offer(tl2(1), decodable: false)],
             needsKeyframe: true),
        Case(name: "a whole period lost: the next TL0 skips an index",
             steps: start + [.lostWhole, .lostWhole, .lostWhole, .lostWhole, .offer(tl0(2), decodable: false)],
             needsKeyframe: true),
        Case(name: "TL0PICIDX wraps 255 -> 0",
             steps: [.offer(key(254), decodable: true), .offer(tl2sync(254), decodable: true)] + period(255) + period(0),
             needsKeyframe: false),
        Case(name: "a keyframe given up waits for the next",
             steps: start + [.giveUp(key(1)), .offer(tl2sync(1), decodable: false), .offer(key(2), decodable: true)],
             needsKeyframe: false),
        Case(name: "a frame the decoder refused waits for a keyframe",
             steps: start + [.refused, .offer(tl0(1), decodable: false)], needsKeyframe: true),
        Case(name: "without layer fields any frame given up waits for a keyframe",
             steps: [.offer(Frame(isKeyframe: true), decodable: true), .offer(Frame(), decodable: true), .giveUp(Frame()),
                     .offer(Frame(), decodable: false), .offer(Frame(isKeyframe: true), decodable: true),
                     .offer(Frame(), decodable: true)],
             needsKeyframe: false),
        Case(name: "without layer fields a frame lost whole waits for a keyframe",
             steps: [.offer(Frame(isKeyframe: true), decodable: true), .lostWhole, .offer(Frame(), decodable: false)],
             needsKeyframe: true),
        Case(name: "TID without TL0PICIDX counts as no layers",
             steps: [.offer(Frame(isKeyframe: true, temporalLayer: 0), decodable: true),
                     .giveUp(Frame(temporalLayer: 2, isNonReference: true)), .offer(Frame(temporalLayer: 1), decodable: false)],
             needsKeyframe: true),
        // libvpx's own 3-layer pattern (no per-period sync): TL2 reads and updates ALTREF,
        // TL1 GOLDEN; Y only on the first frame of a layer after a keyframe; N never.
        Case(name: "chained upper layers: a lost TL2 stops TL2 until a keyframe, TL0 and TL1 go on",
             steps: [.offer(key(0), decodable: true),
                     .offer(Frame(temporalLayer: 2, layerSync: true, tl0PicIdx: 0), decodable: true),
                     .offer(Frame(temporalLayer: 1, layerSync: true, tl0PicIdx: 0), decodable: true),
                     .giveUp(Frame(temporalLayer: 2, tl0PicIdx: 0)),
                     .offer(tl0(1), decodable: true),
                     .offer(Frame(temporalLayer: 2, tl0PicIdx: 1), decodable: false),
                     .offer(Frame(temporalLayer: 1, tl0PicIdx: 1), decodable: true),
                     .offer(Frame(temporalLayer: 2, tl0PicIdx: 1), decodable: false),
                     .offer(tl0(2), decodable: true),
                     .offer(key(3), decodable: true),
                     .offer(Frame(temporalLayer: 2, layerSync: true, tl0PicIdx: 3), decodable: true)],
             needsKeyframe: false),
        Case(name: "chained upper layers: a TL2 frame skipped for its layer breaks the next ones too",
             steps: [.offer(key(0), decodable: true),
                     .giveUp(Frame(temporalLayer: 1, tl0PicIdx: 0)),
                     .offer(Frame(temporalLayer: 2, tl0PicIdx: 0), decodable: false),
                     .offer(tl0(1), decodable: true),
                     .offer(Frame(temporalLayer: 2, layerSync: true, tl0PicIdx: 1), decodable: true),
                     .offer(Frame(temporalLayer: 1, tl0PicIdx: 1), decodable: false),
                     .offer(Frame(temporalLayer: 2, tl0PicIdx: 1), decodable: false),
                     .offer(Frame(temporalLayer: 1, layerSync: true, tl0PicIdx: 1), decodable: true),
                     .offer(Frame(temporalLayer: 2, tl0PicIdx: 1), decodable: false)],
             needsKeyframe: false),
    ]

    @Test(arguments: cases)
    func rules(_ c: Case) {
        var tracker = TemporalLayerDependencies()
        for (index, step) in c.steps.enumerated() {
            switch step {
            case .offer(let frame, let decodable):
                let verdict = tracker.admit(frame)
                #expect(verdict == decodable, "step \(index): \(step)")
            case .giveUp(let frame): tracker.notDecoded(frame)
            case .lostWhole: tracker.framesLostWhole()
            case .refused: tracker.referenceLost()
            }
        }
        #expect(tracker.needsKeyframe == c.needsKeyframe)
    }

    /// Which losses would cost a keyframe (the jitter buffer waits longer for those), after
    /// period 0 (last TL0PICIDX 0): the frame at stake, or the frames before the next one.
    @Test(arguments: [
        (Self.tl2sync(0), true, false), (Self.tl1(0), false, false), (Self.tl0(1), false, false),
        (Self.tl0(1), true, true), (Self.key(1), true, true), (Self.tl2(1), false, true), (Self.tl2sync(1), true, true),
        (Self.tl0(2), false, true), (Frame(), false, true), (Frame(temporalLayer: 2), true, true),
    ])
    func whichLossesCostAKeyframe(next: Frame, includingIt: Bool, breaks: Bool) {
        var tracker = TemporalLayerDependencies()
        for step in Self.start { if case .offer(let frame, _) = step { _ = tracker.admit(frame) } }
        #expect(tracker.lossBreaksBaseLayer(upTo: next, includingIt: includingIt) == breaks)
    }

    @Test func resetWaitsForAKeyframeAgain() {
        var tracker = TemporalLayerDependencies()
        #expect(tracker.needsKeyframe, "nothing decodes before the first keyframe")
        let keyframe = tracker.admit(Self.key(9))
        #expect(keyframe)
        #expect(!tracker.needsKeyframe && tracker.brokenLayers == 0)
        tracker.framesLostWhole()
        #expect(tracker.brokenLayers == 0b1110, "every upper layer")
        tracker.reset()
        let delta = tracker.admit(Self.tl0(10))
        #expect(tracker.needsKeyframe && !delta)
    }
}
