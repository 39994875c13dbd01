import CXCB
import CYUV
import Foundation
import OTMedia

/// An Xvfb X server this test starts on a free display number and kills when done. A
/// machine without Xvfb fails the test that needs it (scripts/install-deps.sh installs
/// the `xvfb` package): the window path is never skipped.
public final class XvfbDisplay: @unchecked Sendable {
    /// ":N", for `OTView.show(display:)`, `DISPLAY` and `xcb_connect`.
    public let name: String
    private let process: Process

    /// Xvfb is not installed.
    public struct Missing: Error, CustomStringConvertible {
        /// What to install.
        public var description: String { "Xvfb is not installed: the window tests need it (scripts/install-deps.sh installs xvfb)" }
    }

    /// No display number worked.
    public struct NotStarted: Error, CustomStringConvertible {
        /// The numbers tried.
        public let description: String
    }

    /// Starts `Xvfb :N` (24-bit screen, no TCP) on the first number from a random point in
    /// 60…899 whose lock file and socket are absent, and waits until it accepts a client.
    public init() throws {
        guard let executable = Subprocess.which("Xvfb") else { throw Missing() }
        var tried: [String] = []
        var start = Int.random(in: 60..<900)
        for _ in 0..<20 {
            start = start >= 899 ? 60 : start + 1
            let number = start
            guard !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock"),
                  !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = [":\(number)", "-screen", "0", "1024x768x24", "-nolisten", "tcp"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline && process.isRunning && !Self.accepts(":\(number)") {
                Thread.sleep(forTimeInterval: 0.05)
            }
            if process.isRunning && Self.accepts(":\(number)") {
                self.name = ":\(number)"
                self.process = process
                return
            }
            tried.append(":\(number)")
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()  // another server took the number meanwhile: the next one
        }
        throw NotStarted(description: "Xvfb did not start on any of \(tried)")
    }

    /// Whether an X server at `name` accepts a client now.
    static func accepts(_ name: String) -> Bool {
        var screen: Int32 = 0
        guard let connection = xcb_connect(name, &screen) else { return false }
        defer { xcb_disconnect(connection) }
        return xcb_connection_has_error(connection) == 0
    }

    /// Kills the server and waits for it. SIGKILL: the server inherits the test
    /// process's signal mask, which may block SIGTERM.
    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Asks `window` to close as a window manager does when the user closes it.
    public func requestClose(_ window: UInt32) {
        var screen: Int32 = 0
        guard let connection = xcb_connect(name, &screen) else { return }
        defer { xcb_disconnect(connection) }
        if xcb_connection_has_error(connection) == 0 { cxcb_request_close(connection, window) }
    }

    /// Reads a w x h area of `window` through a connection of the test's own (not the
    /// view's) and converts it to I420, so `FrameNumberStamp` can read what the window
    /// shows. Nil when the server refuses (e.g. the window is gone).
    public func readWindow(_ window: UInt32, width: Int, height: Int) -> (picture: VideoFrame, distinctColours: Int)? {
        var screen: Int32 = 0
        guard let connection = xcb_connect(name, &screen) else { return nil }
        defer { xcb_disconnect(connection) }
        guard xcb_connection_has_error(connection) == 0 else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let status = pixels.withUnsafeMutableBufferPointer { out in
            cxcb_get_image32(connection, window, 0, 0, UInt16(width), UInt16(height), out.baseAddress)
        }
        guard status == 0 else { return nil }
        var colours = Set<UInt32>()
        for index in stride(from: 0, to: pixels.count, by: 4) {
            colours.insert(UInt32(pixels[index]) | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2]) << 16)
            if colours.count > 64 { break }
        }
        let picture = VideoFrame(width: width, height: height)
        _ = ARGBToI420(pixels, Int32(width * 4), picture.y, Int32(picture.strideY), picture.u, Int32(picture.strideUV),
                       picture.v, Int32(picture.strideUV), Int32(width), Int32(height))
        return (picture, colours.count)
    }
}
