import Foundation
import Glibc

/// Which listening addresses only this machine can reach (the router's dev tokens are
/// on by default there, and `otkit router` warns about plaintext everywhere else).
public enum LoopbackAddress {
    /// True when `host` (an IP literal) is reachable only from this machine: 127.0.0.0/8,
    /// `::1`, `::ffff:127.x.x.x`. Everything else, including `0.0.0.0`, `::` and text that is
    /// not an address, counts as exposed. Cost: one or two `inet_pton`.
    public static func contains(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: ["[", "]"])
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, bare, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }  // ::1
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
        return mapped && bytes[12] == 127
    }
}
