/// Entry point for the libFuzzer target over what a composed archive reads from the
/// network (see `RTCPFuzzing` in OTMedia for how targets are built): RTP packets into one
/// stream's decoding path (reorder, VP8 reassembly, libvpx, libopus, the audio timeline)
/// and the REST layout and resolution fields. The body is here, in the library, so unit
/// tests run the same code over random inputs.
public enum ComposerFuzzing {
    /// The target body. Byte 0 even: the rest is a sequence of packets, each a 2-byte
    /// big-endian length (its top bit: audio) and that many bytes, fed to a fresh stream's
    /// decoder with arrival times 10 ms apart; then a mix of the instants they cover.
    /// Byte 0 odd: the rest, as text split on NUL (an empty field is absent), is a
    /// resolution, a layout type, a stylesheet and a screenshare type to parse, then per
    /// stream focus/screen-share bits, and the parsed layout's rectangles for 1–16 streams. Returns the packets fed (or 1 when the layout parsed). Cost: O(input)
    /// plus the decoders' work; a fresh decoder (libvpx, libopus) per call.
    @discardableResult
    public static func run(_ data: UnsafeRawBufferPointer) -> Int {
        guard let first = data.first else { return 0 }
        let rest = UnsafeRawBufferPointer(rebasing: data[1...])
        return first & 1 == 0 ? feed(rest) : parse(rest)
    }

    private static func feed(_ data: UnsafeRawBufferPointer) -> Int {
        let input = ComposerStreamInput(streamId: "fuzz", layoutStream: LayoutStream(), wantsVideo: true, queueCapacity: 64,
                                        slotSize: 1500)
        let decoder = ComposerStreamDecoder(input: input, wantsVideo: true, wantsAudio: true, reorderDepth: 4,
                                            reorderTimeoutNanoseconds: 60_000_000, originNanoseconds: 1_000_000_000,
                                            audioDelaySamples: 2_880)
        var offset = 0
        var fed = 0
        var arrival: UInt64 = 1_000_000_000
        while offset + 2 <= data.count {
            let header = Int(data[offset]) << 8 | Int(data[offset + 1])
            let length = min(header & 0x7FFF, data.count - offset - 2)
            let packet = UnsafeRawBufferPointer(rebasing: data[(offset + 2)..<(offset + 2 + length)])
            input.enqueue(header & 0x8000 != 0 ? .audio : .video, rtp: packet, arrivalNanoseconds: arrival)
            offset += 2 + length
            fed += 1
            arrival += 10_000_000
            if fed % 32 == 0 { decoder.drain(now: arrival) }
        }
        decoder.drain(now: arrival + 1_000_000_000)
        decoder.flush()
        let mix = UnsafeMutablePointer<Int32>.allocate(capacity: 1_600)
        defer { mix.deallocate() }
        mix.initialize(repeating: 0, count: 1_600)
        for tick in 0..<Int64(fed / 3 + 2) { decoder.audio.mix(into: mix, count: 1_600, at: tick * 1_600) }
        if let picture = decoder.picture { _ = (picture.width, picture.height) }
        return fed
    }

    private static func parse(_ data: UnsafeRawBufferPointer) -> Int {
        let fields = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        func field(_ index: Int) -> String? { index < fields.count && !fields[index].isEmpty ? fields[index] : nil }
        let canvas = field(0).flatMap { CanvasResolution(parsing: $0) } ?? .standard
        guard case .success(let layout) = CompositionLayout.parse(type: field(1), stylesheet: field(2), screenshareType: field(3)) else {
            return 0
        }
        let flags = field(4).map { Array($0.utf8) } ?? []
        for count in 1...16 {
            let streams = (0..<count).map { index -> LayoutStream in
                let bits = index < flags.count ? flags[index] : 0
                return LayoutStream(isFocus: bits & 1 != 0, isScreenshare: bits & 2 != 0)
            }
            let cells = LayoutMath.cells(for: streams, layout: layout, canvas: canvas)
            precondition(cells.count == count, "a layout lost a stream")
            for cell in cells {
                precondition(cell.x >= 0 && cell.y >= 0 && cell.x + cell.width <= canvas.width && cell.y + cell.height <= canvas.height,
                             "a cell left the canvas")
                _ = cell.fitting(sourceWidth: Int(bitPattern: UInt(cell.width &* 7)), sourceHeight: cell.height | 1)
            }
            _ = LayoutMath.drawOrder(cells)
        }
        return 1
    }
}
