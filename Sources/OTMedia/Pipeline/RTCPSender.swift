/// Builds, protects and sends compound RTCP datagrams from one thread (the feedback
/// thread of a publisher, the receive thread of a subscriber).
///
/// Cost per compound: one write into a pooled buffer, one SRTCP protect, one send; no
/// allocation (the message batch and the one-element array are kept).
final class RTCPSender {
    private let socket: UDPSocket
    private let pool: PacketBufferPool
    private let srtp: SRTPSession?
    private let messages = UDPMessageBatch(capacity: 32)
    private var batch: [PacketBuffer] = []
    /// The CNAME's bytes for SDES, allocated once; valid while this sender lives.
    let cname: UnsafeRawBufferPointer

    init(socket: UDPSocket, pool: PacketBufferPool, keys: SRTPKeyMaterial?, cname: String) throws(MediaError) {
        self.socket = socket
        self.pool = pool
        do { srtp = try keys.map { k throws(SRTPError) in try SRTPSession(keys: k, direction: .sender) } } catch {
            throw MediaError(.invalidArgument, "SRTCP sender: \(error)")
        }
        let bytes = Array(cname.utf8.prefix(255))
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        storage.copyBytes(from: bytes)
        self.cname = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<bytes.count])
        batch.reserveCapacity(32)
    }

    deinit { UnsafeMutableRawPointer(mutating: cname.baseAddress)?.deallocate() }

    /// Writes one compound with `build` into a buffer, protects it, sends it to
    /// `destination`. Returns false when the pool is empty or building/protecting failed.
    @discardableResult
    func send(to destination: SocketAddress, _ build: (inout RTCPCompoundWriter) throws(RTCPError) -> Void) -> Bool {
        guard let buffer = pool.take() else { return false }
        defer { pool.release(buffer) }
        let region = buffer.writableBytes
        let room = UnsafeMutableRawBufferPointer(rebasing: region[0..<(region.count - SRTPProfile.maxTrailer)])
        var writer = RTCPCompoundWriter(buffer: room)
        let length: Int
        do {
            try build(&writer)
            length = try writer.finish().count
        } catch { return false }
        var total = length
        if let srtp {
            do { total = try srtp.protectRTCP(region, length: length) } catch { return false }
        }
        buffer.setLength(total)
        buffer.peer = destination
        batch.append(buffer)
        defer { batch.removeAll(keepingCapacity: true) }
        return (try? socket.send(batch, batch: messages).count) == 1
    }
}
