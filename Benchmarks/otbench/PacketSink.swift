import Glibc
import OTMedia
import Synchronization

/// Where both publishers of the pipeline rows send: a UDP socket bound to 127.0.0.1 with
/// a large receive buffer, emptied every 10 ms by a drain thread that polls it without
/// blocking, counts RTP and RTCP packets (RFC 5761 rule: second byte 192–223 is RTCP)
/// and bytes, and throws them away.
///
/// Why this kind of sink: on loopback the sender's own system call does the receiving
/// host's work (IP input, the UDP queue), and a reader blocked in `recv` would add a
/// cross-CPU wake-up per datagram to the sender's bill — a cost no real network sender
/// pays. Nobody waits on this socket, so a datagram costs the sender the send plus the
/// enqueue, the same for OTKit and GStreamer. The counts prove each publisher did the
/// job (GStreamer's process is otherwise a black box). The drain's CPU is never charged
/// to either: GStreamer runs in another process, and for OTKit the drain thread's own
/// CPU clock is subtracted from the process's.
final class PacketSink: @unchecked Sendable {
    /// Counts since the sink started.
    struct Counts: Equatable {
        var rtpPackets: UInt64 = 0
        var rtpBytes: UInt64 = 0
        var rtcpPackets: UInt64 = 0
        var otherPackets: UInt64 = 0
    }

    /// The address to send to (127.0.0.1 and the port the kernel chose).
    let address: SocketAddress
    private let descriptor: Int32
    private let running = Atomic<Bool>(true)
    private let rtpPackets = Atomic<UInt64>(0)
    private let rtpBytes = Atomic<UInt64>(0)
    private let rtcpPackets = Atomic<UInt64>(0)
    private let otherPackets = Atomic<UInt64>(0)
    private var thread = pthread_t()
    private var cpuClock = clockid_t()

    /// Binds the socket (16 MB asked for, room for a whole run) and starts the drain thread.
    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ScenarioError("packet sink: socket: \(String(cString: strerror(errno)))") }
        var size: Int32 = 16 << 20
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, 4) != 0 { _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, 4) }
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &sin) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Bool in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw ScenarioError("packet sink: cannot bind 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        descriptor = fd
        address = .ipv4Loopback(port: UInt16(bigEndian: sin.sin_port))
        let context = Unmanaged.passRetained(self)
        let status = pthread_create(&thread, nil, { raw in
            let sink = Unmanaged<PacketSink>.fromOpaque(raw!).takeRetainedValue()
            sink.drain()
            return nil
        }, context.toOpaque())
        guard status == 0 else {
            context.release()
            close(fd)
            throw ScenarioError("packet sink: pthread_create failed (\(status))")
        }
        cpuClock = CPUClock.clock(of: thread)
    }

    /// CPU time the drain thread has used so far (nanoseconds). Any thread may call it.
    var cpuNanoseconds: UInt64 { CPUClock.read(cpuClock) }

    /// The counts so far (up to 10 ms behind the sends; relaxed loads).
    var counts: Counts {
        Counts(rtpPackets: rtpPackets.load(ordering: .relaxed), rtpBytes: rtpBytes.load(ordering: .relaxed),
               rtcpPackets: rtcpPackets.load(ordering: .relaxed), otherPackets: otherPackets.load(ordering: .relaxed))
    }

    /// Stops the drain and closes the socket.
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        pthread_join(thread, nil)
        close(descriptor)
    }

    private func drain() {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 2048, alignment: 16)
        defer { buffer.deallocate() }
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        while running.load(ordering: .relaxed) {
            sleepMilliseconds(10)
            while true {
                let received = recv(descriptor, buffer, 2048, Int32(MSG_DONTWAIT))
                guard received > 0 else { break }
                if received >= 12, bytes[0] >> 6 == 2 {
                    if (192...223).contains(bytes[1]) {
                        rtcpPackets.add(1, ordering: .relaxed)
                    } else {
                        rtpPackets.add(1, ordering: .relaxed)
                        rtpBytes.add(UInt64(received), ordering: .relaxed)
                    }
                } else {
                    otherPackets.add(1, ordering: .relaxed)
                }
            }
        }
    }
}
