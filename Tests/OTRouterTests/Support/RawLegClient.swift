import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Synchronization

/// A hand-driven client of one subscriber leg: real SRTP with the leg's keys, several
/// local sockets (source addresses) sharing one SRTCP sender, a thread that counts what
/// the router sends to each socket. With `nackEverything` on it answers every video packet
/// with NACKs naming that packet and the 9 before it, each twice: every packet is asked
/// for 20 times, as an abusive subscriber would.
final class RawLegClient: @unchecked Sendable {
    let leg: WireMediaLeg
    let sockets: [UDPSocket]
    /// The client's own SSRC in its RTCP.
    let ssrc: UInt32 = 0x5EED_0001
    /// Whether every received video packet is answered with NACKs.
    let nackEverything = Atomic<Bool>(false)
    /// NACK packets sent.
    let nacksSent = Atomic<Int>(0)
    /// Datagrams and bytes received on each socket.
    private let counts: Mutex<[(datagrams: Int, bytes: Int)]>

    private let target: SocketAddress
    private let sender: SRTPSession
    private let receiver: SRTPSession
    private let videoSSRC: UInt32
    private let sendLock = NSLock()
    private let sendPool = PacketBufferPool(initialCount: 4)
    private let sendBatch = UDPMessageBatch(capacity: 1)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)

    init(leg: WireMediaLeg, sockets count: Int = 1) throws {
        self.leg = leg
        let keys = try LegClient.keys(leg)
        sender = try SRTPSession(keys: keys.send, direction: .sender)
        receiver = try SRTPSession(keys: keys.receive, direction: .receiver)
        target = try LegClient.address(leg)
        videoSSRC = leg.videoSSRC ?? 0
        var sockets: [UDPSocket] = []
        for _ in 0..<count {
            sockets.append(try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 4 << 20, sendBufferBytes: 1 << 20))
        }
        self.sockets = sockets
        counts = Mutex(Array(repeating: (0, 0), count: count))
        Thread { [self] in run() }.start()
    }

    /// Datagrams the router sent to socket `index` so far.
    func datagrams(_ index: Int) -> Int { counts.withLock { $0[index].datagrams } }

    /// Bytes the router sent to socket `index` so far.
    func bytes(_ index: Int) -> Int { counts.withLock { $0[index].bytes } }

    /// Sends an authenticated receiver report (with `nacking` sequence numbers as NACK
    /// pairs, if any) to the leg from socket `index`, under sender SSRC `as` (the client's
    /// own by default); false if it could not be built or sent.
    @discardableResult
    func sendReport(via index: Int = 0, nacking pairs: [NACKPair] = [], as senderSSRC: UInt32? = nil) -> Bool {
        let ssrc = senderSSRC ?? self.ssrc
        sendLock.lock(); defer { sendLock.unlock() }
        guard let buffer = sendPool.take() else { return false }
        defer { sendPool.release(buffer) }
        let region = buffer.writableBytes
        let built: Int? = pairs.withUnsafeBufferPointer { list in
            var writer = RTCPCompoundWriter(buffer: UnsafeMutableRawBufferPointer(rebasing: region[0..<(region.count - 64)]),
                                             reducedSize: true)
            do {
                try writer.append(ReceiverReport(ssrc: ssrc))
                if !list.isEmpty { try writer.append(GenericNACK(senderSSRC: ssrc, mediaSSRC: videoSSRC, pairs: RTCPList(list))) }
                let length = try writer.finish().count
                return try sender.protectRTCP(region, length: length)
            } catch {
                return nil
            }
        }
        guard let built else { return false }
        buffer.setLength(built)
        buffer.peer = target
        let sent = (try? sockets[index].send([buffer], batch: sendBatch).count) ?? 0
        return sent == 1
    }

    private func run() {
        let pool = PacketBufferPool(initialCount: 32)
        let batch = UDPMessageBatch(capacity: 32)
        var buffers: [PacketBuffer] = []
        for _ in 0..<32 { buffers.append(pool.take()!) }
        while running.load(ordering: .relaxed) {
            _ = try? sockets[0].waitUntilReadable(timeoutNanoseconds: 1_000_000)
            for (index, socket) in sockets.enumerated() {
                while case .processed(let n)? = try? socket.receive(into: buffers, batch: batch), n > 0 {
                    let total = buffers.prefix(n).reduce(0) { $0 + $1.length }
                    counts.withLock { $0[index].datagrams += n; $0[index].bytes += total }
                    if index == 0 { for buffer in buffers.prefix(n) { answer(buffer) } }
                    for buffer in buffers { buffer.reset() }
                }
            }
        }
        finished.store(true, ordering: .releasing)
    }

    /// NACKs a first-time video packet (a resend fails SRTP's replay check and is skipped).
    private func answer(_ buffer: PacketBuffer) {
        guard nackEverything.load(ordering: .relaxed),
              PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) == .rtp,
              let length = try? receiver.unprotect(buffer.writableBytes, length: buffer.length), length >= 12 else { return }
        let base = UnsafeRawBufferPointer(buffer.bytes)
        let packetSSRC = UInt32(base[8]) << 24 | UInt32(base[9]) << 16 | UInt32(base[10]) << 8 | UInt32(base[11])
        guard packetSSRC == videoSSRC else { return }
        let sequence = UInt16(base[2]) << 8 | UInt16(base[3])
        let pair = NACKPair(packetID: sequence &- 9, lostBitmask: 0x01FF)
        if sendReport(nacking: [pair, pair]) { nacksSent.add(1, ordering: .relaxed) }
    }

    /// Stops the thread and closes the sockets.
    func stop() {
        running.store(false, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { usleep(1_000) }
        for socket in sockets { socket.close() }
    }
}
