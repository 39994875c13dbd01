import OTRouter
import Testing

@Suite struct ForwardingCountersTests {
    @Test func startAtZero() {
        let counters = ForwardingCounters()
        #expect(counters.packetsIn == 0 && counters.mutedAudioDropped == 0 && counters.badPackets == 0)
    }
}
