import Testing
@testable import OTMedia

@Suite struct LipSyncTests {
    @Test func ntpMappingConvertsFixedPointAndWraps() {
        // 2 s + half a second in 32.32 fixed point.
        let mapping = SenderClockMapping(ntp: 2 << 32 | 0x8000_0000, rtpTimestamp: 0xFFFF_FF00, clockRate: 90_000)
        #expect(mapping.senderNanoseconds == 2_500_000_000)
        #expect(mapping.senderTime(of: 0xFFFF_FF00 &+ 90_000) == 3_500_000_000, "one second later, across the wrap")
        #expect(mapping.senderTime(of: 0xFFFF_FF00 &- 9_000) == 2_400_000_000, "earlier timestamps map backwards")
    }

    @Test func videoIsScheduledAgainstTheAudioPlayingNow() {
        var sync = LipSynchronizer()
        // The sender's streams started at different random RTP offsets; same wall clock.
        sync.updateAudio(SenderClockMapping(senderNanoseconds: 10_000_000_000, rtpTimestamp: 1_000, clockRate: 48_000))
        sync.updateVideo(SenderClockMapping(senderNanoseconds: 10_000_000_000, rtpTimestamp: 555_000, clockRate: 90_000))
        #expect(sync.renderTime(ofVideo: 555_000) == nil, "no audio has played yet")
        // Audio captured at sender time 10.2 s plays locally at 50 s.
        sync.audioPlayed(rtpTimestamp: 1_000 + 9_600, at: 50_000_000_000)
        // Video captured at 10.2 s must show at 50 s; at 10.3 s, 100 ms later.
        #expect(sync.renderTime(ofVideo: 555_000 + 18_000) == 50_000_000_000)
        #expect(sync.renderTime(ofVideo: 555_000 + 27_000) == 50_100_000_000)
        #expect(sync.skew(ofVideo: 555_000 + 18_000, shownAt: 50_040_000_000) == -40_000_000, "shown 40 ms late")
    }
}
