import Foundation

/// Whether the device suites (`Hardware*`) run: only where a VM harness with the vivid
/// and snd-aloop drivers sets `OTKIT_HARDWARE_TESTS=1`.
enum HardwareTests {
    static var enabled: Bool { ProcessInfo.processInfo.environment["OTKIT_HARDWARE_TESTS"] == "1" }
}
