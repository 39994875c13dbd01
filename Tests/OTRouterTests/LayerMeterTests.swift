import OTMedia
import Testing
@testable import OTRouter

/// The router's layer meter: an encoding the publisher stops sending (its simulcast
/// allocator switched it off under a capped uplink) is absent from the next window on,
/// so no subscriber leg stays on it; it is present again once it sends.
struct LayerMeterTests {
    private func second(_ meter: inout LayerMeter, sending encodings: [Int], at now: UInt64) -> StreamLayers? {
        for encoding in encodings {
            for frame in 0..<30 {
                meter.addVideo(encoding: encoding, temporal: [0, 2, 1, 2][frame % 4], bytes: 1000 * (encoding + 1), frameStart: true)
            }
        }
        _ = meter.roll(now: now, encodings: 2, widths: [320, 640], heights: [180, 360])
        return meter.layers
    }

    @Test func anEncodingThatStopsIsAbsentAtOnceAndBackWhenItSends() throws {
        var meter = LayerMeter()
        _ = meter.roll(now: 1_000_000_000, encodings: 2, widths: [320, 640], heights: [180, 360])
        var layers = try #require(second(&meter, sending: [0, 1], at: 2_000_000_000))
        #expect(layers.spatial.map { $0.bitrates.isEmpty } == [false, false])
        #expect(layers.spatial[1].bitrates.last == 480_000)

        layers = try #require(second(&meter, sending: [0], at: 3_000_000_000))
        #expect(layers.spatial[0].bitrates.last == 240_000)
        #expect(layers.spatial[1].bitrates.isEmpty, "the stopped encoding is absent in the first window without it")
        #expect(layers.frameRates.last == 30, "frame rates from the encoding that sends")

        layers = try #require(second(&meter, sending: [0, 1], at: 4_000_000_000))
        #expect(layers.spatial[1].bitrates.last == 480_000, "measured afresh when it returns")
    }
}
