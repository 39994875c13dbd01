import OTMedia

/// `otkit devices`: the cameras this machine has.
enum DevicesCommand {
    static func run(_ words: ArraySlice<String>) throws -> Int32 {
        let args = try Arguments(words, valued: [], flags: ["help"])
        if args.flags.contains("help") { print("usage: otkit devices\n\nLists V4L2 capture devices with their formats."); return 0 }
        let cameras = V4L2Camera.devices()
        if cameras.isEmpty { print("no cameras (no V4L2 capture device under /dev/video*)") }
        for camera in cameras { print(camera) }
        return 0
    }
}
