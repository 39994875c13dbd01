/// The packets one `PublisherTransport` turn numbered and protected, waiting for their
/// `sendmmsg`: the transport thread has one, and each video capture thread one of its own
/// for direct sends (`PublisherTransport.pumpDirect`), so a capture thread can send its
/// batch after leaving the transport's lock while the transport thread fills its own.
///
/// Cost: arrays and a message table made once (`capacity` packets); no allocation per
/// packet or per send.
final class TransportSendBatch {
    /// The packets, in sending order.
    var packets: [PacketBuffer] = []
    /// What each packet is (counters; padding is not counted as media).
    var kinds: [SentPacketKind] = []
    /// Per video encoding: the packets to keep for NACKs once sent.
    var videoPackets: [[PacketBuffer]] = []
    /// The `sendmmsg` table.
    let messages: UDPMessageBatch

    /// A batch of up to `capacity` packets for `encodings` video encodings (at least one).
    init(capacity: Int, encodings: Int) {
        messages = UDPMessageBatch(capacity: capacity)
        packets.reserveCapacity(capacity)
        kinds.reserveCapacity(capacity)
        for _ in 0..<max(1, encodings) {
            var kept: [PacketBuffer] = []
            kept.reserveCapacity(capacity)
            videoPackets.append(kept)
        }
    }

    /// Appends one packet (room reserved: no allocation).
    func add(_ buffer: PacketBuffer, kind: SentPacketKind) {
        packets.append(buffer)
        kinds.append(kind)
    }

    /// True when another packet does not fit.
    var isFull: Bool { packets.count >= messages.capacity }

    /// Sends the packets (one `sendmmsg`; each run of equal-sized packets to one peer, such
    /// as a frame's, as one UDP GSO message: on loopback 2 packets cost 5.6 µs of CPU
    /// instead of 7.5, 3 packets 7 instead of 11), counts them, keeps video in `stores`
    /// for NACKs and returns every buffer to the pool. Holds no lock across the send.
    func send(pipeline: PublisherPipeline, stores: [RetransmissionStore]) {
        guard !packets.isEmpty else { return }
        let sent = (try? pipeline.socket.sendSegmented(packets, batch: messages).count) ?? 0
        if sent < packets.count {
            pipeline.transportCounters.droppedPackets.add(UInt64(packets.count - sent), ordering: .relaxed)
        }
        for index in 0..<min(sent, packets.count) where kinds[index] != .padding {
            let counters = kinds[index] == .audio ? pipeline.audioCounters : pipeline.videoCounters
            counters.packets.add(1, ordering: .relaxed)
            counters.bytes.add(UInt64(packets[index].length), ordering: .relaxed)
        }
        for encoding in 0..<min(videoPackets.count, stores.count) where !videoPackets[encoding].isEmpty {
            stores[encoding].store(videoPackets[encoding])
            videoPackets[encoding].removeAll(keepingCapacity: true)
        }
        for slot in 0..<packets.count { pipeline.pool.release(packets[slot]) }
        packets.removeAll(keepingCapacity: true)
        kinds.removeAll(keepingCapacity: true)
    }
}
