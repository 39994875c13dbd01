/// What one subscriber leg did with the last `capacity` video packets of its forwarded
/// encoding (by incoming sequence number), so a packet the router repairs late (its NACK
/// to the publisher answered) goes out under the number, timestamp, PictureID and
/// TL0PICIDX it would have had, or stays dropped when its frame was dropped.
///
/// Forwarding thread only; storage allocated at init; O(1) record, O(window) lookup.
struct LegVideoTrail {
    /// How a late packet goes out.
    struct Mapping: Equatable {
        var sequenceDelta: UInt16
        var timestampDelta: UInt32
        var pictureID: UInt16
        /// Outgoing TL0PICIDX = incoming + this.
        var tl0Delta: UInt8
    }

    private struct Entry {
        var sequence: UInt16 = 0
        var timestamp: UInt32 = 0
        var encoding: Int8 = -1
        /// 0: nothing, 1: forwarded, 2: dropped with its frame.
        var state: UInt8 = 0
        var mapping = Mapping(sequenceDelta: 0, timestampDelta: 0, pictureID: 0, tl0Delta: 0)
    }

    static let capacity = 256
    /// How far a late packet's neighbours are looked for.
    static let window = 48
    private var entries = [Entry](repeating: Entry(), count: LegVideoTrail.capacity)

    /// Notes an in-order packet of `encoding`: forwarded with `mapping`, or dropped (nil).
    mutating func record(sequence: UInt16, timestamp: UInt32, encoding: Int, mapping: Mapping?) {
        let index = Int(sequence) & (Self.capacity - 1)
        entries[index] = Entry(sequence: sequence, timestamp: timestamp, encoding: Int8(encoding),
                               state: mapping == nil ? 2 : 1, mapping: mapping ?? entries[index].mapping)
    }

    /// How a late packet of `encoding` goes out, or nil (its frame was dropped, or where it
    /// belongs cannot be told). A neighbour with the same RTP timestamp is its frame; a
    /// frame lost whole goes out when the packets on both sides went out with the same
    /// offsets (nothing was dropped in between), under the next frame's PictureID.
    func mapping(sequence: UInt16, timestamp: UInt32, encoding: Int) -> Mapping? {
        var before: Entry?
        var after: Entry?
        for distance in 1...Self.window {
            let s = sequence &- UInt16(distance)
            let e = entries[Int(s) & (Self.capacity - 1)]
            if e.state != 0, e.sequence == s, e.encoding == Int8(encoding) { before = e; break }
        }
        for distance in 1...Self.window {
            let s = sequence &+ UInt16(distance)
            let e = entries[Int(s) & (Self.capacity - 1)]
            if e.state != 0, e.sequence == s, e.encoding == Int8(encoding) { after = e; break }
        }
        if let b = before, b.timestamp == timestamp { return b.state == 1 ? b.mapping : nil }
        if let a = after, a.timestamp == timestamp { return a.state == 1 ? a.mapping : nil }
        guard let b = before, let a = after, b.state == 1, a.state == 1,
              b.mapping.sequenceDelta == a.mapping.sequenceDelta, b.mapping.timestampDelta == a.mapping.timestampDelta
        else { return nil }
        return a.mapping
    }
}
