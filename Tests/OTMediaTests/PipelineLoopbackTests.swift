import Testing
@testable import OTMedia

/// OTKit publisher → OTKit subscriber on 127.0.0.1, through the impairment proxy where
/// loss is needed: the whole engine (capture, VP8/Opus, RTP, SRTP, UDP, jitter buffers,
/// NACK, PLI, FEC/PLC, decode) with real components only.
@Suite(.serialized) struct PipelineLoopbackTests {
    @Test(arguments: [SRTPProfile.aeadAES128GCM, .aesCM128HMACSHA1_80])
    func cleanPathDecodesEveryFrameAndTheTone(profile: SRTPProfile) throws {
        let outcome = try LoopbackRun(profile: profile, frames: 90).run()
        #expect(outcome.sent.count >= 90)
        #expect(outcome.decodedShare >= 0.99, "decoded \(outcome.decodedShare) of \(outcome.sent.count)")
        let (psnrs, levels, samples) = outcome.decoded.snapshot { ($0.psnrs, $0.audioFrameLevels, $0.audioSamples) }
        let meanPSNR = psnrs.reduce(0, +) / Double(max(psnrs.count, 1))
        #expect(meanPSNR >= 30, "mean Y-PSNR \(meanPSNR)")
        let frequency = AudioAnalysis.dominantFrequency(samples: Array(samples.suffix(48_000)), sampleRate: 48_000)
        #expect(frequency.map { abs($0 - 440) < 5 } == true, "audio at \(String(describing: frequency)) Hz")
        #expect(levels.count > 100, "audio frames played: \(levels.count)")
        #expect(outcome.subscriberVideo.badPackets == 0)
        #expect(outcome.publisherErrors.isEmpty && outcome.subscriberErrors.isEmpty,
                "\(outcome.publisherErrors) \(outcome.subscriberErrors)")
    }
}

/// Bad input from the network never stops a pipeline: junk is dropped and counted.
@Suite(.serialized) struct PipelineBadInputTests {
    @Test func junkDatagramsAreCountedAndTheStreamGoesOn() throws {
        var run = LoopbackRun(frames: 90)
        run.withGarbage = true
        let outcome = try run.run()
        #expect(outcome.decodedShare >= 0.99, "decoded \(outcome.decodedShare) with junk arriving")
        #expect(outcome.subscriberVideo.badPackets > 50, "junk counted at the subscriber: \(outcome.subscriberVideo)")
        #expect(outcome.publisherVideo.badPackets > 50, "junk counted at the publisher: \(outcome.publisherVideo)")
        let levels = outcome.audioLevelsWhileSending
        #expect(levels.count > 100 && levels.dropFirst(5).allSatisfy { $0 > 1000 }, "audio unharmed")
    }
}

/// The same path through the impairment proxy (the kernel here has no netem).
@Suite(.serialized) struct PipelineImpairmentTests {
    @Test func fivePercentLossIsRepairedByRetransmission() throws {
        var run = LoopbackRun(frames: 150)
        run.forward = ImpairmentSettings(lossProbability: 0.05)
        let outcome = try run.run()
        #expect(outcome.decodedShare >= 0.99, "decoded \(outcome.decodedShare) of \(outcome.sent.count)")
        #expect(outcome.subscriberVideo.nacks > 0, "the subscriber asked for lost packets")
        #expect(outcome.publisherVideo.retransmissions > 0, "the publisher resent them")
        #expect(outcome.subscriberVideo.packetsLost >= 0)
        let levels = outcome.audioLevelsWhileSending
        let quiet = levels.enumerated().filter { $0.element < 1000 }.map { "\($0.offset):\(Int($0.element))" }
        #expect(levels.count > 200, "audio frames played: \(levels.count)")
        #expect(levels.dropFirst(5).allSatisfy { $0 > 1000 }, "audio continues through the loss (PLC/FEC); quiet: \(quiet)")
    }

    @Test func twentyPercentLossKeepsTheStreamGoing() throws {
        var run = LoopbackRun(frames: 150)
        run.forward = ImpairmentSettings(lossProbability: 0.20)
        run.reverse = ImpairmentSettings(lossProbability: 0.20)
        let outcome = try run.run()
        let numbers = outcome.decoded.snapshot { $0.frameNumbers }
        // The stream keeps going: frames decode in the last second too, not only at the start.
        let lastSent = outcome.sent.last ?? 0
        #expect(numbers.contains { UInt64($0) + 30 >= lastSent }, "frames decoded near the end")
        #expect(outcome.decodedShare >= 0.5, "decoded \(outcome.decodedShare)")
        #expect(outcome.subscriberVideo.keyframeRequests > 0, "frames NACK could not save made the subscriber ask for keyframes")
        #expect(outcome.subscriberVideo.keyframes >= 2, "and keyframes arrived and decoded: \(outcome.subscriberVideo)")
        // Continuous: a frame played for every 20 ms slot the publisher sent (lost ones
        // concealed or rebuilt), and sound in nearly all of them; Opus PLC fades within a
        // burst of several lost packets, which 20 % random loss produces now and then.
        let levels = outcome.audioLevelsWhileSending
        let sentAudio = Int(outcome.publisherAudio.frames)
        #expect(levels.count >= sentAudio - 10, "played \(levels.count) frames for \(sentAudio) sent")
        let audible = levels.dropFirst(5).filter { $0 > 500 }.count
        #expect(Double(audible) >= 0.95 * Double(levels.count - 5), "\(audible) of \(levels.count) frames audible")
    }
}
