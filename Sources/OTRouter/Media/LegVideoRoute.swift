/// What one subscriber leg does with one received video packet, and how the packets it
/// forwards are rewritten so the subscriber sees one continuous VP8 stream whatever the
/// router drops or switches (RFC 7741 4.2, RFC 3550 5.1).
///
/// - Encoding (simulcast, `spatial`): only the forwarded encoding's packets reach the
///   leg. A switch to `pendingSpatial` happens at the first packet of a keyframe of that
///   encoding; the leg's sequence numbers continue from the last one sent (+1) and its RTP
///   timestamps from the last one sent plus the wall time since.
/// - Temporal layers: a frame whose TID is above `temporal` is dropped whole (its packets
///   shift the leg's sequence numbers down, so the drop does not look like loss). A lower
///   `targetTemporal` applies at the next frame; a higher one only at a TL0 frame or a
///   layer-sync (Y) frame whose TID fits, because other frames may reference frames the
///   subscriber never got.
/// - `allowed` (subscribeToVideo and audio fallback) is taken at frame boundaries.
/// - PictureID counts the forwarded frames, so the subscriber's depacketizer sees no
///   missing picture. TL0PICIDX keeps the publisher's steps (one offset, set anew at a
///   switch): TL0 frames are never dropped for their layer, so a gap is TL0 frames the
///   router never got (or a pause), and the subscriber must see it to wait for a keyframe
///   rather than decode on a missing reference; a counter would hide it.
///
/// Forwarding thread only. O(1), no allocation.
struct LegVideoRoute {
    /// What to do with the packet.
    enum Verdict: Equatable {
        /// Rewrite and send it.
        case forward
        /// Drop it; it belonged to the forwarded encoding (the sequence shift counts it).
        case skip
        /// Another encoding's packet: not this leg's concern.
        case ignore
    }

    /// The encoding forwarded (index into the publisher's encodings, 0 = smallest).
    var spatial: Int
    /// The encoding a switch waits for a keyframe of (-1: none).
    var pendingSpatial = -1
    /// The highest temporal layer forwarded now, and the one wanted.
    var temporal = 3
    var targetTemporal = 3
    /// Whether the frame in progress is forwarded.
    var frameOn: Bool
    /// Set by a completed spatial switch; the adaptation timer tells the selector.
    var switchedTo = -1

    /// Outgoing sequence = incoming + `sequenceDelta` (nil until the first packet).
    var sequenceDelta: UInt16?
    /// Outgoing RTP timestamp = incoming + `timestampDelta`.
    var timestampDelta: UInt32 = 0
    var lastSequence: UInt16
    var lastTimestamp: UInt32 = 0
    var lastSentAt: UInt64 = 0
    var rebase = false
    var pictureID: UInt16
    /// The last TL0PICIDX sent, and outgoing TL0PICIDX = incoming + `tl0Delta` (nil
    /// until the first packet).
    var tl0: UInt8
    var tl0Delta: UInt8?
    /// What was done with the recent packets, for late (repaired) ones.
    var trail = LegVideoTrail()
    /// Frames dropped for their temporal layer, and spatial switches made.
    var framesDropped: UInt64 = 0
    var switches: UInt64 = 0

    init(spatial: Int, on: Bool) {
        self.spatial = spatial
        frameOn = on
        lastSequence = UInt16.random(in: 0 ... .max)
        pictureID = UInt16.random(in: 0...0x7FFF)
        tl0 = UInt8.random(in: 0 ... .max)
    }

    /// Decides for one packet of `encoding`. `frameStart`: the packet starts a picture.
    mutating func admit(encoding: Int, fields: VP8Fields, frameStart: Bool, allowed: Bool) -> Verdict {
        if encoding == pendingSpatial, encoding != spatial, frameStart, fields.keyframe, allowed {
            spatial = encoding
            pendingSpatial = -1
            switchedTo = encoding
            rebase = true
            temporal = targetTemporal
            switches &+= 1
        }
        guard encoding == spatial else { return .ignore }
        if frameStart {
            let tid = fields.temporalLayer
            if targetTemporal < temporal {
                temporal = targetTemporal
            } else if targetTemporal > temporal, tid == 0 || (fields.layerSync && tid <= targetTemporal) {
                temporal = targetTemporal
            }
            let wasOn = frameOn
            frameOn = allowed && tid <= temporal
            if frameOn {
                pictureID = (pictureID &+ 1) & 0x7FFF
            } else if allowed || wasOn {
                framesDropped &+= 1
            }
        }
        guard frameOn else {
            if let delta = sequenceDelta { sequenceDelta = delta &- 1 }
            return .skip
        }
        return .forward
    }

    /// Rewrites a late (repaired) packet of `encoding` as its neighbours went out; false
    /// when it is not to be sent (its frame was dropped, another encoding is forwarded
    /// now, or nothing was sent yet). Does not move the leg's last sent number.
    mutating func rewriteLate(_ p: UnsafeMutableRawPointer, encoding: Int, fields: VP8Fields, sequence: UInt16,
                              timestamp: UInt32, shift: Int = 0) -> Bool {
        guard encoding == spatial, sequenceDelta != nil,
              let m = trail.mapping(sequence: sequence, timestamp: timestamp, encoding: encoding) else { return false }
        WireBytes.store16(sequence &+ m.sequenceDelta, p, 2)
        WireBytes.store32(timestamp &+ m.timestampDelta, p, 4)
        fields.rewrite(p + shift, pictureID: m.pictureID, tl0: fields.tl0PicIdx &+ m.tl0Delta)
        return true
    }

    /// Notes what became of an in-order packet (`forwarded`: after `rewrite`).
    mutating func record(encoding: Int, sequence: UInt16, timestamp: UInt32, forwarded: Bool) {
        let mapping = forwarded
            ? LegVideoTrail.Mapping(sequenceDelta: sequenceDelta ?? 0, timestampDelta: timestampDelta, pictureID: pictureID,
                                    tl0Delta: tl0Delta ?? 0)
            : nil
        trail.record(sequence: sequence, timestamp: timestamp, encoding: encoding, mapping: mapping)
    }

    /// Rewrites a forwarded packet's sequence number, timestamp, PictureID and TL0PICIDX
    /// (`p`: the leg's copy, whose header extension is `shift` bytes longer than the
    /// source's that `fields` was read from) at `now`; returns the outgoing sequence number.
    mutating func rewrite(_ p: UnsafeMutableRawPointer, fields: VP8Fields, sequence: UInt16, timestamp: UInt32,
                          now: UInt64, shift: Int = 0) -> UInt16 {
        if sequenceDelta == nil || rebase {
            sequenceDelta = lastSequence &+ 1 &- sequence
        }
        if tl0Delta == nil || rebase {
            // The first frame after a switch (a keyframe) steps on from the last one sent.
            tl0Delta = tl0 &+ 1 &- fields.tl0PicIdx
        }
        if rebase {
            let elapsed = UInt32(truncatingIfNeeded: max(1, (now &- lastSentAt) / 11_111))  // 90 kHz ticks
            timestampDelta = lastTimestamp &+ elapsed &- timestamp
            rebase = false
        }
        let out = sequence &+ sequenceDelta!
        let ts = timestamp &+ timestampDelta
        WireBytes.store16(out, p, 2)
        WireBytes.store32(ts, p, 4)
        let outTL0 = fields.tl0PicIdx &+ tl0Delta!
        fields.rewrite(p + shift, pictureID: pictureID, tl0: outTL0)
        if fields.tl0Offset != 0 { tl0 = outTL0 }
        if Int16(bitPattern: out &- lastSequence) > 0 || lastSentAt == 0 {
            lastSequence = out
            lastTimestamp = ts
            lastSentAt = now
        }
        return out
    }
}
