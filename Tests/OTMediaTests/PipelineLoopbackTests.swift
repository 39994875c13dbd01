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
