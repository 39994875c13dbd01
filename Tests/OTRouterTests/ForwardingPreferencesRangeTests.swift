import OTMedia
@testable import OTRouter
import Testing

/// `ForwardingGroup.setPreferences` on a real group: any `Double` is stored as a frame
/// rate in millihertz without trapping (1e300 × 1000 used to be converted to `Int` before
/// it was clamped and took every session on the router down).
@Suite(.serialized) struct ForwardingPreferencesRangeTests {
    static let rates: [(Double?, Int)] = [
        (nil, 0), (15, 15_000), (7.5, 7_500), (0, 0), (-1, 0), (1000, 1_000_000), (1000.4, 1_000_000),
        (1e300, 1_000_000), (-1e300, 0), (.infinity, 0), (-.infinity, 0), (.nan, 0),
        (.greatestFiniteMagnitude, 1_000_000), (Double(Int.max), 1_000_000), (.leastNonzeroMagnitude, 0),
    ]

    @Test func anyFrameRateIsStoredClamped() throws {
        var ssrcs = SSRCAllocator()
        let loopback = SocketAddress.ipv4Loopback()
        let group = try ForwardingGroup(publisher: try PublisherLeg(streamId: "s1", bindingTo: loopback, host: "127.0.0.1",
                                                                    profile: .default, audio: true, video: true, ssrcs: &ssrcs))
        defer { group.stop() }
        let leg = try SubscriberLeg(subscriberId: "a", bindingTo: loopback, host: "127.0.0.1", profile: .default, audio: true,
                                    video: true, carriesAudio: true, carriesVideo: true, ssrcs: &ssrcs)
        try group.add(leg)
        for (rate, millihertz) in Self.rates {
            #expect(group.setPreferences(subscriberId: "a", width: Int.max, height: Int.min, frameRate: rate))
            #expect(leg.preferredFrameRateMillihertz.load(ordering: .relaxed) == millihertz, "\(String(describing: rate))")
            #expect(leg.preferredWidth.load(ordering: .relaxed) == Int.max && leg.preferredHeight.load(ordering: .relaxed) == 0)
        }
    }
}
