import CBareRelay
import OTMedia

/// The router scenario's packets and blaster, shared by the SDES and the one-port edge
/// rows: a ring of `packets` RTP packets (1200-byte payloads, 8 per 3000-tick frame),
/// filled protected with the publisher's session or clear for the bare relay, blasted by
/// a C thread (`bare_blaster_*`) that keeps at most `window` packets per receiver in
/// flight. The protected stream's sequence numbers run on without jumps across fills
/// (libsrtp guesses the rollover counter from them); the clear packets have their own.
/// Cost: `packets` × 1280 bytes, allocated once.
final class RouterBlastRing {
    static let stride = 1280
    static let window = 256
    let packets: Int
    let ssrc: UInt32
    let payloadBytes: Int
    private let ring: UnsafeMutableRawBufferPointer
    private var lengths: [Int32]
    private var protectedSequence: UInt16 = 0, clearSequence: UInt16 = 0
    private var timestamp: UInt32 = 0

    init(packets: Int, ssrc: UInt32, payloadBytes: Int) {
        self.packets = packets
        self.ssrc = ssrc
        self.payloadBytes = payloadBytes
        ring = .allocate(byteCount: Self.stride * packets, alignment: 64)
        lengths = [Int32](repeating: 0, count: packets)
    }

    deinit { ring.deallocate() }

    /// Starts the blaster thread on the ring (see `blast`) and returns it without waiting
    /// (`bare_blaster_finish` joins it); nil when the thread cannot start. The ring must
    /// not be refilled before it finishes.
    func startBlast(from socket: UDPSocket, to port: UInt16, drain: OpaquePointer, receivers: Int) -> OpaquePointer? {
        lengths.withUnsafeBufferPointer { lengths in
            bare_blaster_start(socket.fileDescriptor, port, UnsafePointer(ring.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                               Int32(Self.stride), lengths.baseAddress, Int32(packets), drain, Int32(receivers), Int32(Self.window))
        }
    }

    /// Fills the ring with the next `packets` RTP packets, protected with `protector` or clear (nil).
    func fill(protector: SRTPSession?) throws {
        let protected = protector != nil
        var sequence = protected ? protectedSequence : clearSequence
        defer { if protected { protectedSequence = sequence } else { clearSequence = sequence } }
        for index in 0..<packets {
            let slot = UnsafeMutableRawBufferPointer(rebasing: ring[(index * Self.stride)..<((index + 1) * Self.stride)])
            let header = RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc)
            let headerLength = try header.write(into: slot)
            for byte in headerLength..<(headerLength + payloadBytes) { slot[byte] = UInt8(truncatingIfNeeded: byte &* 31) }
            var length = headerLength + payloadBytes
            if let protector { length = try protector.protect(slot, length: length) }
            lengths[index] = Int32(length)
            sequence &+= 1
            if index % 8 == 7 { timestamp &+= 3000 }
        }
    }

    /// Blasts the ring from `socket` to `port` of loopback, pacing against `drain`'s
    /// `receivers` sockets, and waits for the forwarder to go quiet (`forwarded` stops moving).
    func blast(from socket: UDPSocket, to port: UInt16, drain: OpaquePointer, receivers: Int, forwarded: () -> UInt64) throws {
        guard let blaster = startBlast(from: socket, to: port, drain: drain, receivers: receivers) else {
            throw ScenarioError("cannot start the blaster thread")
        }
        _ = bare_blaster_finish(blaster)
        var last = forwarded()
        while true {
            sleepMilliseconds(30)
            let now = forwarded()
            if now == last { break }
            last = now
        }
    }
}
