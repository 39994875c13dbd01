// fuzz-sources: Sources/OTRouter/Signaling/RelayedMediaAddress.swift
import Foundation

/// libFuzzer target: `RelayedMediaAddress.problem`, the check of the host and port a
/// relayed publisher announces in its `publish` message (and of its own signaling peer's
/// address text). The file is compiled into the target (the `fuzz-sources` line).
///
/// Input: `[port hi][port mid][port lo][sign][host bytes…]0x00[announcer bytes…]`: the
/// port is a signed 24-bit value, so ports past both ends are reached. Checks that an
/// accepted address has a port in 1024...65535 and a host `inet_pton` reads. A trap or
/// an AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRelayedAddress(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 4 else { return 0 }
    let magnitude = Int(data[0]) << 16 | Int(data[1]) << 8 | Int(data[2])
    let port = data[3] & 1 == 0 ? magnitude : -magnitude
    let rest = UnsafeBufferPointer(start: data + 4, count: size - 4)
    let split = rest.firstIndex(of: 0) ?? rest.count
    let host = String(decoding: rest[0..<split], as: UTF8.self)
    let announcer = split < rest.count ? String(decoding: rest[(split + 1)...], as: UTF8.self) : nil
    if RelayedMediaAddress.problem(host: host, port: port, announcer: announcer) == nil {
        precondition((1024...65535).contains(port), "port \(port) accepted")
        var v4 = in_addr(), v6 = in6_addr()
        precondition(inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1, "host \(host) accepted")
    }
    return 0
}
