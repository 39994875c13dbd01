import Foundation

/// Whether tests that need real devices (vivid's /dev/video0, the snd-aloop card) run:
/// only when the VM harness sets `OTKIT_HARDWARE_TESTS=1`.
enum HardwareTests {
    static var enabled: Bool { ProcessInfo.processInfo.environment["OTKIT_HARDWARE_TESTS"] == "1" }
}
