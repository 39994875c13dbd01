import OTMedia

/// `otkit devices`: the cameras this machine has, with what each can capture.
/// (ALSA devices and `--json` come with the full command.)
enum DevicesCommand {
    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: [], flags: ["help"])
        if args.flags.contains("help") {
            print("usage: otkit devices\n\nLists V4L2 capture devices with their formats, sizes and frame rates.")
            return 0
        }
        let cameras = V4L2Camera.devices()
        if cameras.isEmpty { print("no cameras (no V4L2 capture device under /dev/video*)") }
        for camera in cameras {
            print("\(camera.path)  \(camera.card)  (driver \(camera.driver), \(camera.busInfo))")
            for format in camera.formats {
                let usable = format.pixelFormat == nil ? "  [not convertible]" : ""
                print("  \(format.fourcc)  \(format.description)\(usable)")
                for line in sizeLines(format.frameSizes) { print("    \(line)") }
            }
        }
        return 0
    }

    static func sizeLines(_ sizes: V4L2FrameSizes) -> [String] {
        switch sizes {
        case .discrete(let list):
            return list.map { "\($0.width)x\($0.height)  \(rates($0.intervals))" }
        case .stepwise(let range):
            return ["\(range.minWidth)x\(range.minHeight) to \(range.maxWidth)x\(range.maxHeight) (step \(range.stepWidth)x\(range.stepHeight))  \(rates(range.intervals))"]
        }
    }

    static func rates(_ intervals: V4L2FrameIntervals) -> String {
        switch intervals {
        case .discrete(let list):
            return list.map { formatted($0.framesPerSecond, 1) }.joined(separator: ", ") + " fps"
        case .stepwise(let minimum, let maximum, _):
            return "\(formatted(maximum.framesPerSecond, 1)) to \(formatted(minimum.framesPerSecond, 1)) fps"
        }
    }
}
