import Foundation
import Glibc

/// A plain POSIX TCP connection to 127.0.0.1 for tests that must send bytes no client
/// library would (smuggled requests, unmasked frames) or open thousands of sockets without
/// a thread or an lws context each. Blocking connect; reads wait in `poll` up to a limit.
/// Closed on deinit. Cost: one descriptor.
public final class RawTCPConnection: @unchecked Sendable {
    /// The socket; -1 once closed.
    public private(set) var descriptor: Int32

    /// Connects to 127.0.0.1:`port`; nil when the connection is refused or fails.
    public init?(port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit { close() }

    /// Closes the socket (idempotent).
    public func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// Sends all of `bytes` (no SIGPIPE); false when the peer has gone.
    @discardableResult public func send(_ bytes: [UInt8]) -> Bool {
        guard descriptor >= 0 else { return false }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Sends `text` as UTF-8.
    @discardableResult public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the peer closes (EOF or reset) or `seconds` pass. `closed` says which.
    public func readUntilClosed(seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        let end = Date(timeIntervalSinceNow: seconds)
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while descriptor >= 0 {
            let remaining = end.timeIntervalSinceNow
            guard remaining > 0 else { return (bytes, false) }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 || errno != EINTR {
                return (bytes, true)
            }
        }
        return (bytes, true)
    }

    /// Without waiting: true when the peer has closed (EOF or reset); discards data it sent.
    public func peerHasClosed() -> Bool {
        guard descriptor >= 0 else { return true }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 { continue }
            if count == 0 { return true }
            return !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        }
    }

    /// Reads an HTTP response head (up to the blank line) within `seconds`; nil if the
    /// connection closed or the time ran out first. Reads byte by byte: nothing after the
    /// head is consumed.
    public func readHead(seconds: Double) -> String? {
        var head: [UInt8] = []
        let end = Date(timeIntervalSinceNow: seconds)
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let remaining = end.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, Int32(remaining * 1000) + 1) > 0 else { continue }
            guard recv(descriptor, &byte, 1, 0) == 1 else { return nil }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self)
    }

    /// The upgrade request for a WebSocket on `path` (a fixed key; tests do not check the accept hash).
    public static func upgradeRequest(path: String, port: Int) -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// Opens a WebSocket on `path`: connects, upgrades, waits up to `seconds` for the 101.
    /// Nil when refused.
    public static func webSocket(port: Int, path: String, seconds: Double = 5) -> RawTCPConnection? {
        guard let connection = RawTCPConnection(port: port), connection.send(upgradeRequest(path: path, port: port)),
              let head = connection.readHead(seconds: seconds), head.hasPrefix("HTTP/1.1 101") else { return nil }
        return connection
    }

    /// One client-to-server text frame (RFC 6455 §5.2), masked as §5.3 requires unless
    /// `masked` is false (a protocol violation, for tests). Payloads under 64 KiB.
    public static func textFrame(_ text: String, masked: Bool = true) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else {
            frame.append(maskBit | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        guard masked else { return frame + payload }
        let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
        return frame
    }
}

/// CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat;
/// nil when the process is gone. Cost: one small file read.
public func processCPUSeconds(pid: Int32) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = text.lastIndex(of: ")") else { return nil }
    // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Raises this process's soft descriptor limit to its hard limit (tests that open
/// thousands of sockets); returns the new soft limit.
@discardableResult public func raiseOwnDescriptorLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    _ = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    return Int(clamping: limit.rlim_cur)
}
