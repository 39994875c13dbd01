import Foundation

/// Gate for tests that need real kernel drivers (vivid, snd-aloop): the VM harness in
/// Tests/Hardware sets `OTKIT_HARDWARE_TESTS=1`; everywhere else these suites are skipped.
enum HardwareTests { static var enabled: Bool { ProcessInfo.processInfo.environment["OTKIT_HARDWARE_TESTS"] == "1" } }
