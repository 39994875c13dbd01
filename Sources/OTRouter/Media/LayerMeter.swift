import OTMedia

/// The router's own measure of what each layer of a published stream costs: bytes and
/// frames per (encoding, temporal layer) over one-second windows, smoothed (half the
/// new window, half the old), the audio rate, and each encoding's size from its
/// keyframes. At each window's end it builds the `StreamLayers` the legs' selectors use
/// (cumulative bitrates per temporal layer; frame rates of the largest encoding that sends; an
/// encoding above the smallest that sends nothing is listed without bitrates: absent).
///
/// Forwarding thread only. `add` is O(1) with no allocation; a window's end builds one
/// `StreamLayers` (a few small arrays, once a second).
struct LayerMeter {
    static let window: UInt64 = 1_000_000_000
    static let maxEncodings = 3
    static let maxTemporal = 4

    private var bytes = [UInt64](repeating: 0, count: maxEncodings * maxTemporal)
    private var frames = [UInt64](repeating: 0, count: maxEncodings * maxTemporal)
    private var rate = [Double](repeating: 0, count: maxEncodings * maxTemporal)
    private var frameRate = [Double](repeating: 0, count: maxEncodings * maxTemporal)
    private var audioBytes: UInt64 = 0
    private var windowStart: UInt64 = 0
    private var topTemporal = 0
    /// The smoothed audio rate, bits per second.
    private(set) var audioRate = 0
    /// The smoothed rate of every video layer together, bits per second.
    private(set) var videoRate = 0
    /// The layers as last measured (nil before the first full window with video).
    private(set) var layers: StreamLayers?
    /// Bumped each time `layers` is rebuilt.
    private(set) var generation: UInt64 = 0

    /// Counts one video packet of `encoding` in temporal layer `temporal`.
    @inline(__always)
    mutating func addVideo(encoding: Int, temporal: Int, bytes count: Int, frameStart: Bool) {
        let index = encoding * Self.maxTemporal + min(temporal, Self.maxTemporal - 1)
        bytes[index] &+= UInt64(count)
        if frameStart { frames[index] &+= 1 }
        if temporal > topTemporal { topTemporal = min(temporal, Self.maxTemporal - 1) }
    }

    /// Counts one audio packet.
    @inline(__always)
    mutating func addAudio(bytes count: Int) { audioBytes &+= UInt64(count) }

    /// Ends the window at `now` if it is over; returns true when `layers` was rebuilt.
    /// `widths`/`heights`: each encoding's size (0 = unknown).
    mutating func roll(now: UInt64, encodings: Int, widths: [Int], heights: [Int]) -> Bool {
        if windowStart == 0 { windowStart = now; return false }
        let elapsed = now &- windowStart
        guard elapsed >= Self.window else { return false }
        let seconds = Double(elapsed) / 1e9
        let first = generation == 0
        var sawVideo = false
        // Which encodings sent anything in this window (raw, not smoothed: a smoothed
        // rate only halves each window and never reaches 0 once an encoding has sent).
        var sentNow = 0  // bit s: encoding s sent
        for index in bytes.indices where bytes[index] > 0 { sentNow |= 1 << (index / Self.maxTemporal) }
        for index in bytes.indices {
            let bps = Double(bytes[index]) * 8 / seconds
            let fps = Double(frames[index]) / seconds
            // No history (the first window, or a layer that was absent): the window as measured.
            let fresh = first || (rate[index] == 0 && frameRate[index] == 0)
            rate[index] = fresh ? bps : (rate[index] + bps) / 2
            frameRate[index] = fresh ? fps : (frameRate[index] + fps) / 2
            if bytes[index] > 0 { sawVideo = true }
            bytes[index] = 0
            frames[index] = 0
        }
        videoRate = Int(rate.reduce(0, +))
        let audio = Double(audioBytes) * 8 / seconds
        audioRate = first ? Int(audio) : (audioRate + Int(audio)) / 2
        audioBytes = 0
        windowStart = now
        guard encodings > 0, sawVideo || layers != nil else { return false }
        var spatial: [SpatialLayerInfo] = []
        for s in 0..<encodings {
            var cumulative: [Int] = []
            var sum = 0.0
            for t in 0...topTemporal {
                sum += rate[s * Self.maxTemporal + t]
                cumulative.append(Int(sum))
            }
            // An encoding above the smallest that the publisher does not send (nothing in
            // this window: never sent, or switched off by the publisher's allocator) is
            // absent (no bitrates), so no selector forwards it or waits for its keyframe;
            // its smoothed history is dropped so a return is measured afresh.
            if s > 0, sum == 0 || sentNow & (1 << s) == 0 {
                cumulative = []
                for t in 0..<Self.maxTemporal {
                    rate[s * Self.maxTemporal + t] = 0
                    frameRate[s * Self.maxTemporal + t] = 0
                }
            }
            spatial.append(SpatialLayerInfo(width: s < widths.count ? widths[s] : 0,
                                            height: s < heights.count ? heights[s] : 0, bitrates: cumulative))
        }
        var top = encodings - 1  // the largest encoding that sends
        while top > 0, spatial[top].bitrates.isEmpty { top -= 1 }
        var rates: [Double] = []
        var sum = 0.0
        for t in 0...topTemporal {
            sum += frameRate[top * Self.maxTemporal + t]
            rates.append(sum)
        }
        layers = StreamLayers(spatial: spatial, frameRates: rates)
        generation &+= 1
        return true
    }
}
