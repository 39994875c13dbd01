import Foundation
import Synchronization

/// UDP ports for loopback interop tests: fixed per test process, unique across processes.
///
/// Each process owns a block of 25 ports in 20000–31999 (below Linux's ephemeral range,
/// 32768+) chosen from its pid, so test suites running in parallel processes do not
/// collide; inside the block ports are handed out in turn, skipping any already bound.
/// Cost: a read of /proc/net/udp per call.
enum InteropPorts {
    /// Ports per process block.
    static let blockSize = 25
    /// The first port of this process's block.
    static let base = UInt16(20000 + Int(getpid() % 480) * blockSize)
    private static let next = Mutex(0)

    /// `count` distinct ports that nothing is bound to right now.
    static func take(_ count: Int) -> [UInt16] {
        precondition(count <= blockSize, "a block has \(blockSize) ports")
        let bound = GStreamerPeer.boundUDPPorts()
        return next.withLock { next in
            var ports: [UInt16] = []
            var tries = 0
            while ports.count < count && tries < blockSize * 2 {
                let port = base + UInt16(next % blockSize)
                next += 1
                tries += 1
                if !bound.contains(port) && !ports.contains(port) { ports.append(port) }
            }
            return ports
        }
    }

    /// Two consecutive free ports (RTP on the first, RTCP on the second), or nil when
    /// the block has none free. Continues the same rotation as `take`, so a port an
    /// earlier test's sender may still be spraying is not handed out again soon.
    static func takeAdjacentPair() -> [UInt16]? {
        let bound = GStreamerPeer.boundUDPPorts()
        return next.withLock { next in
            for _ in 0..<blockSize {
                let offset = next % blockSize
                next += 1
                guard offset + 1 < blockSize else { continue }  // the pair stays in the block
                let port = base + UInt16(offset)
                if !bound.contains(port) && !bound.contains(port + 1) {
                    next += 1
                    return [port, port + 1]
                }
            }
            return nil
        }
    }
}
