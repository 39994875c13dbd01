import OTMedia

/// `otkit devices`: the cameras (path, name, driver, bus, formats with sizes and frame
/// rates) and ALSA capture/playback devices of this machine, as a table or `--json`.
enum DevicesCommand {
    static let help = """
        usage: otkit devices [--json]

        Lists V4L2 cameras (path, name, driver, bus, formats with sizes and frame rates) and
        ALSA PCM devices (the hw:CARD,DEVICE names --mic and --play take).

          --json   one JSON object: {"cameras":[…],"audio":[…]}
        """

    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: [], flags: ["help", "json"])
        if args.flags.contains("help") { print(help); return 0 }
        let cameras = V4L2Camera.devices()
        let audio = ALSADevice.all()
        if args.flags.contains("json") {
            print(json(cameras, audio))
            return 0
        }
        print("cameras:")
        if cameras.isEmpty { print("  none (no V4L2 capture device under /dev/video*)") }
        for camera in cameras {
            print("  \(camera.path)  \(camera.card)  (driver \(camera.driver), \(camera.busInfo))")
            for format in camera.formats {
                let usable = format.pixelFormat == nil ? "  [not convertible]" : ""
                print("    \(format.fourcc)  \(format.description)\(usable)")
                for line in sizeLines(format.frameSizes) { print("      \(line)") }
            }
        }
        print("audio (ALSA):")
        if audio.isEmpty { print("  none (no sound card: `otkit publish` sends video only unless --tone)") }
        for device in audio {
            let kinds = [device.capture ? "capture" : nil, device.playback ? "playback" : nil].compactMap { $0 }.joined(separator: ", ")
            print("  \(device.alsaName)  \(device.name)  (\(kinds))")
        }
        return 0
    }

    static func json(_ cameras: [V4L2DeviceInfo], _ audio: [ALSADevice]) -> String {
        let q = Reporter.quoted
        let cameraItems = cameras.map { camera in
            let formats = camera.formats.map { format in
                "{\"fourcc\":\(q(format.fourcc)),\"description\":\(q(format.description)),\"convertible\":\(format.pixelFormat != nil),"
                    + "\"sizes\":[\(sizeJSON(format.frameSizes).joined(separator: ","))]}"
            }
            return "{\"path\":\(q(camera.path)),\"name\":\(q(camera.card)),\"driver\":\(q(camera.driver)),\"bus\":\(q(camera.busInfo)),"
                + "\"formats\":[\(formats.joined(separator: ","))]}"
        }
        let audioItems = audio.map { device in
            "{\"name\":\(q(device.alsaName)),\"description\":\(q(device.name)),\"card\":\(device.card),\"device\":\(device.device),"
                + "\"capture\":\(device.capture),\"playback\":\(device.playback)}"
        }
        return "{\"cameras\":[\(cameraItems.joined(separator: ","))],\"audio\":[\(audioItems.joined(separator: ","))]}"
    }

    static func sizeJSON(_ sizes: V4L2FrameSizes) -> [String] {
        switch sizes {
        case .discrete(let list):
            return list.map { "{\"width\":\($0.width),\"height\":\($0.height),\"fps\":\(ratesJSON($0.intervals))}" }
        case .stepwise(let r):
            return ["{\"minWidth\":\(r.minWidth),\"maxWidth\":\(r.maxWidth),\"minHeight\":\(r.minHeight),\"maxHeight\":\(r.maxHeight),"
                + "\"stepWidth\":\(r.stepWidth),\"stepHeight\":\(r.stepHeight),\"fps\":\(ratesJSON(r.intervals))}"]
        }
    }

    static func ratesJSON(_ intervals: V4L2FrameIntervals) -> String {
        switch intervals {
        case .discrete(let list): return "[" + list.map { formatted($0.framesPerSecond, 3) }.joined(separator: ",") + "]"
        case .stepwise(let minimum, let maximum, _):
            return "{\"min\":\(formatted(maximum.framesPerSecond, 3)),\"max\":\(formatted(minimum.framesPerSecond, 3))}"
        }
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
