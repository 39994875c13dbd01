import Testing
@testable import OTMedia

@Suite struct RTCPTimeTests {
    /// RFC 3550 section 6.4.1's worked example (figure 2): an SR sent at LSR =
    /// 0xb705:2000 (46853.125 s), held for DLSR = 0x0005:4000 (5.25 s), the report arriving
    /// at A = 0xb710:8000 (46864.5 s) gives a round trip of 0x0006:2000 (6.125 s).
    @Test func rfc3550RoundTripExample() throws {
        let arrival = NTPTimestamp(rawValue: UInt64(0xB710_8000) << 16)
        #expect(arrival.middle32 == 0xB710_8000)
        let rtt = try #require(RTCPRoundTrip.nanoseconds(arrival: arrival, lastSenderReport: 0xB705_2000,
                                                         delaySinceLastSenderReport: 0x0005_4000))
        #expect(rtt == 6_125_000_000)
        #expect(RTCPRoundTrip.nanoseconds(fromCompact: 0x0006_2000) == 6_125_000_000)
    }

    @Test func noRoundTripWithoutAnSROrWhenNegative() {
        let arrival = NTPTimestamp(rawValue: UInt64(0xB710_8000) << 16)
        #expect(RTCPRoundTrip.nanoseconds(arrival: arrival, lastSenderReport: 0, delaySinceLastSenderReport: 5) == nil)
        // The reporter claims to have held the SR longer than it has existed.
        #expect(RTCPRoundTrip.nanoseconds(arrival: arrival, lastSenderReport: 0xB705_2000,
                                          delaySinceLastSenderReport: 0x0010_0000) == nil)
    }

    /// Round trips across the 2^32 wrap of the middle 32 bits still work.
    @Test func roundTripAcrossWrap() throws {
        let arrival = NTPTimestamp(rawValue: UInt64(0x0000_1000) << 16)
        let rtt = try #require(RTCPRoundTrip.nanoseconds(arrival: arrival, lastSenderReport: 0xFFFF_F000,
                                                         delaySinceLastSenderReport: 0x0000_1000))
        #expect(rtt == RTCPRoundTrip.nanoseconds(fromCompact: 0x1000))
    }

    @Test(arguments: [UInt64(0), 1, 15_258, 15_259, 250_000_000, 5_250_000_000, 86_400_000_000_000])
    func compactUnitsConvert(nanoseconds: UInt64) {
        let compact = RTCPRoundTrip.compact(fromNanoseconds: nanoseconds)
        let back = RTCPRoundTrip.nanoseconds(fromCompact: compact)
        if nanoseconds >= 65_536 * 1_000_000_000 {
            #expect(compact == .max)
        } else {
            #expect(back <= nanoseconds)
            #expect(nanoseconds - back < 15_259)  // one unit is 1/65536 s = 15,258.8 ns
        }
    }

    @Test func ntpFromUnixTime() {
        // 2024-01-01T00:00:00.5Z: Unix 1,704,067,200.5 s.
        let unix: UInt64 = 1_704_067_200_500_000_000
        let ntp = NTPTimestamp(unixNanoseconds: unix)
        #expect(ntp.seconds == UInt32(1_704_067_200 + 2_208_988_800))
        #expect(ntp.fraction == 0x8000_0000)
        #expect(ntp.unixNanoseconds == unix)
        #expect(ntp.middle32 == UInt32(truncatingIfNeeded: (1_704_067_200 + 2_208_988_800) << 16) | 0x8000)
        // Nanosecond round trip within one nanosecond.
        for nanos: UInt64 in [1, 999_999_999, 123_456_789] {
            let t = NTPTimestamp(unixNanoseconds: 1_700_000_000_000_000_000 + nanos)
            #expect(1_700_000_000_000_000_000 + nanos - t.unixNanoseconds <= 1)
        }
    }

    @Test func clockMapsMonotonicReadings() {
        let clock = NTPClock(unixNanoseconds: 1_704_067_200_000_000_000, monotonicNanoseconds: 5_000_000_000)
        #expect(clock.unixNanoseconds(atMonotonic: 5_000_000_000) == 1_704_067_200_000_000_000)
        #expect(clock.unixNanoseconds(atMonotonic: 6_500_000_000) == 1_704_067_201_500_000_000)
        #expect(clock.unixNanoseconds(atMonotonic: 4_000_000_000) == 1_704_067_199_000_000_000)
        let ntp = clock.timestamp(atMonotonic: 6_250_000_000)
        #expect(ntp.fraction == 0x4000_0000)
        #expect(ntp.seconds == UInt32(1_704_067_201 + 2_208_988_800))

        let system = NTPClock.system()
        // A real clock: after 2020 and monotonic readings advance it.
        #expect(system.unixNanoseconds > 1_577_836_800_000_000_000)
        #expect(system.timestamp(atMonotonic: system.monotonicNanoseconds + 1_000_000_000) > system.timestamp(atMonotonic: system.monotonicNanoseconds))
    }

    /// An SR sent, echoed in an RR after a known hold, gives back the path delay.
    @Test func roundTripThroughRealPackets() throws {
        let clock = NTPClock(unixNanoseconds: 1_704_067_200_000_000_000, monotonicNanoseconds: 0)
        let sentAt: UInt64 = 10_000_000_000
        let srTime = clock.timestamp(atMonotonic: sentAt)
        let sr = SenderReport(ssrc: 1, ntpTimestamp: srTime, rtpTimestamp: 0, packetCount: 0, octetCount: 0)
        let srBytes = try RTCPTestSupport.write(sr)
        let lsr = try withRaw(srBytes) { try SenderReport(parsing: $0).ntpTimestamp.middle32 }
        // The peer holds the SR 250 ms; the network takes 40 ms each way.
        let dlsr = RTCPRoundTrip.compact(fromNanoseconds: 250_000_000)
        let block = ReportBlock(ssrc: 1, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
        let arrival = clock.timestamp(atMonotonic: sentAt + 40_000_000 + 250_000_000 + 40_000_000)
        let rtt = try #require(RTCPRoundTrip.nanoseconds(arrival: arrival, lastSenderReport: block.lastSenderReport,
                                                         delaySinceLastSenderReport: block.delaySinceLastSenderReport))
        #expect(rtt > 79_900_000 && rtt < 80_100_000)  // 80 ms within the 16.16 format's resolution
    }
}
