import OTMedia
@testable import OTRouter
import Testing

/// The SFU's in-place rewriting: the transport-wide sequence element, the VP8 descriptor
/// fields, and a leg's route (temporal dropping, up-switch points, simulcast switches)
/// keeping one continuous stream. Table-driven on hand-built packets.
@Suite struct SFURewriteTests {
    /// Per test (a suite instance per test): pools are single-threaded.
    let pool = PacketBufferPool(initialCount: 16, maximumCount: 256, bufferSize: 2048, headroom: 0)

    /// A plaintext VP8 RTP packet: `extensionBlock` (one-byte profile data words) if
    /// given, descriptor with 15-bit PictureID, TL0PICIDX and TID/Y, then `payload`.
    func packet(sequence: UInt16 = 100, timestamp: UInt32 = 9000, ssrc: UInt32 = 0x1111, marker: Bool = true,
                       extensionBlock: [UInt8]? = nil, start: Bool = true, pictureID: UInt16 = 0x1234, tl0: UInt8 = 7,
                       tid: UInt8 = 0, sync: Bool = false, payload: [UInt8] = [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xB4, 0x00])
        -> PacketBuffer {
        var bytes: [UInt8] = [extensionBlock == nil ? 0x80 : 0x90, (marker ? 0x80 : 0) | 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF)]
        bytes += [UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xFF), UInt8(timestamp >> 8 & 0xFF), UInt8(timestamp & 0xFF)]
        bytes += [UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF)]
        if let block = extensionBlock {
            bytes += [0xBE, 0xDE, 0, UInt8(block.count / 4)] + block
        }
        bytes += [0x80 | (start ? 0x10 : 0), 0xE0, 0x80 | UInt8(pictureID >> 8), UInt8(pictureID & 0xFF), tl0,
                  tid << 6 | (sync ? 0x20 : 0)]
        bytes += payload
        let buffer = pool.take()!
        bytes.withUnsafeBytes { _ = buffer.assign($0) }
        return buffer
    }

    static func bytes(_ buffer: PacketBuffer) -> [UInt8] { Array(buffer.bytes) }

    @Test(arguments: [nil, [0x10, 0xAA, 0x00, 0x00], [0x31, 0x00, 0x05, 0x00]] as [[UInt8]?])
    func transportSequenceIsAddedOrRewrittenAndTheRestIsKept(block: [UInt8]?) throws {
        let buffer = packet(extensionBlock: block)
        let before = Self.bytes(buffer)
        let payloadBefore = Array(before.suffix(16))
        #expect(RTPInPlace.setTransportSequence(buffer, 0xBEEF))
        let base = buffer.bytes.baseAddress!
        let offset = try #require(RTPInPlace.transportSequenceOffset(base, buffer.length))
        #expect(WireBytes.be16(base, offset) == 0xBEEF)
        #expect(Array(Self.bytes(buffer).suffix(16)) == payloadBefore, "descriptor and payload unchanged")
        let parsed = try RTPPacket(parsing: UnsafeRawBufferPointer(buffer.bytes))
        #expect(parsed.sequenceNumber == 100 && parsed.ssrc == 0x1111)
        let elements = try #require(parsed.extensions)
        #expect(TransportSequenceNumbers.read(from: elements, id: RTPExtensionID.transportWideSequence) == 0xBEEF)
        if block?.first == 0x10 { #expect(elements.element(id: 1)?.count == 1, "the other element survives") }
        // Rewriting again changes only the value.
        let length = buffer.length
        #expect(RTPInPlace.setTransportSequence(buffer, 7))
        #expect(buffer.length == length)
    }

    @Test func vp8FieldsAreReadAndRewritten() throws {
        let buffer = packet(pictureID: 0x1234, tl0: 7, tid: 2, sync: true)
        let base = buffer.bytes.baseAddress!
        let fields = try #require(VP8Fields(base, buffer.length))
        #expect(fields.temporalLayer == 2 && fields.layerSync && fields.startsFrame && fields.keyframe)
        #expect(fields.width == 320 && fields.height == 180)
        fields.rewrite(base, pictureID: 0x0042, tl0: 99)
        let descriptor = try VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.bytes)[12...]))
        #expect(descriptor.descriptor.pictureID == 0x0042 && descriptor.descriptor.tl0PicIdx == 99)
        #expect(descriptor.descriptor.temporalLayer == 2 && descriptor.descriptor.layerSync)
        #expect(VP8Fields(base, 13) == nil, "a cut descriptor is refused, not read past")
    }

    /// A 4-frame temporal pattern TL0, TL2, TL1, TL2 (one packet per frame).
    static func pattern(_ index: Int) -> (tid: UInt8, sync: Bool) {
        switch index % 4 {
        case 0: return (0, false)
        case 2: return (1, index % 8 == 2)  // every other TL1 frame is a sync frame
        default: return (2, false)
        }
    }

    @Test func temporalLayersAreDroppedAndResumedOnlyAtSwitchPointsWithContinuousNumbers() throws {
        var route = LegVideoRoute(spatial: 0, on: true)
        route.targetTemporal = 0
        var forwarded: [(seq: UInt16, pid: UInt16, tl0: UInt8, tid: UInt8)] = []
        for index in 0..<32 {
            if index == 13 { route.targetTemporal = 2 }
            let (tid, sync) = Self.pattern(index)
            let buffer = packet(sequence: UInt16(1000 + index), timestamp: UInt32(index * 3000), pictureID: UInt16(index),
                                     tl0: UInt8(index / 4), tid: tid, sync: sync, payload: [0x01, 0, 0])
            let base = buffer.bytes.baseAddress!
            let fields = try #require(VP8Fields(base, buffer.length))
            guard route.admit(encoding: 0, fields: fields, frameStart: true, allowed: true) == .forward else { continue }
            let out = route.rewrite(base, fields: fields, sequence: UInt16(1000 + index), timestamp: UInt32(index * 3000), now: 1)
            let descriptor = try VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.bytes)[12...]))
            forwarded.append((out, descriptor.descriptor.pictureID!, descriptor.descriptor.tl0PicIdx!, tid))
        }
        // Before 13: TL0 only (0, 4, 8, 12). From 13 the first switch point is 16 (TL0):
        // 14 is a TL1 sync frame? 14 % 8 == 6: no. So 16 on, every frame.
        #expect(forwarded.count == 4 + 16)
        #expect(forwarded.prefix(4).allSatisfy { $0.tid == 0 })
        for (a, b) in zip(forwarded, forwarded.dropFirst()) {
            #expect(b.seq == a.seq &+ 1, "sequence numbers continuous across the drops")
            #expect(b.pid == (a.pid &+ 1) & 0x7FFF, "PictureID continuous")
            #expect(b.tl0 == (b.tid == 0 ? a.tl0 &+ 1 : a.tl0), "TL0PICIDX steps on TL0 frames only")
        }
        #expect(route.framesDropped == 12)
    }

    /// A TL0 frame the router never got leaves a gap in the TL0PICIDX the subscriber sees
    /// (so it waits for a keyframe instead of decoding on a missing reference), and one the
    /// publisher resends late goes out with its own index.
    @Test func tl0PicIdxKeepsTheGapOfATL0FrameLostUpstream() throws {
        var route = LegVideoRoute(spatial: 0, on: true)
        var sent: [Int: UInt8] = [:]
        func forward(_ index: Int, late: Bool = false) throws {
            let (tid, sync) = Self.pattern(index)
            let sequence = UInt16(2000 + index), timestamp = UInt32(index * 3000)
            let buffer = packet(sequence: sequence, timestamp: timestamp, pictureID: UInt16(index),
                                tl0: UInt8(truncatingIfNeeded: 254 + index / 4), tid: tid, sync: sync, payload: [0x01, 0, 0])
            let base = buffer.bytes.baseAddress!
            let fields = try #require(VP8Fields(base, buffer.length))
            if late {
                let rewritten = route.rewriteLate(base, encoding: 0, fields: fields, sequence: sequence, timestamp: timestamp)
                #expect(rewritten)
            } else {
                try #require(route.admit(encoding: 0, fields: fields, frameStart: true, allowed: true) == .forward)
                _ = route.rewrite(base, fields: fields, sequence: sequence, timestamp: timestamp, now: 1)
                route.record(encoding: 0, sequence: sequence, timestamp: timestamp, forwarded: true)
            }
            let descriptor = try VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.bytes)[12...]))
            sent[index] = descriptor.descriptor.tl0PicIdx
        }
        for index in 0..<12 where index != 4 { try forward(index) }
        let first = try #require(sent[0])
        #expect(sent[5] == first &+ 1 && sent[8] == first &+ 2, "frame 4's index is missing, not reused")
        #expect((0..<12).filter { $0 != 4 }.allSatisfy { sent[$0] == first &+ UInt8($0 / 4) }, "across the 255 wrap too")
        try forward(4, late: true)
        #expect(sent[4] == first &+ 1)
    }

    @Test func anUpSwitchMayStartAtALayerSyncFrame() throws {
        var route = LegVideoRoute(spatial: 0, on: true)
        route.targetTemporal = 0
        var tids: [UInt8] = []
        for index in 0..<12 {
            if index == 1 { route.targetTemporal = 1 }
            let (tid, sync) = Self.pattern(index)
            let buffer = packet(tid: tid, sync: sync, payload: [0x01, 0, 0])
            let fields = try #require(VP8Fields(buffer.bytes.baseAddress!, buffer.length))
            if route.admit(encoding: 0, fields: fields, frameStart: true, allowed: true) == .forward { tids.append(tid) }
        }
        // 0 (TL0), 2 (TL1 with Y: the switch), 4, 6, 8, 10: TL2 frames never.
        #expect(tids == [0, 1, 0, 1, 0, 1])
    }

    @Test func aSimulcastSwitchWaitsForTheTargetsKeyframeAndKeepsTheStreamContinuous() throws {
        var route = LegVideoRoute(spatial: 1, on: true)
        route.pendingSpatial = 0
        var out: [(seq: UInt16, ts: UInt32, encoding: Int)] = []
        let frames: [(encoding: Int, keyframe: Bool)] = [(1, false), (0, false), (1, false), (0, true), (1, false), (0, false)]
        var perEncoding = [0, 0]
        for (index, frame) in frames.enumerated() {
            perEncoding[frame.encoding] += 1  // each encoding numbers its own packets
            let sequence = UInt16(frame.encoding == 0 ? 50_000 + perEncoding[0] : 7 + perEncoding[1])
            let timestamp = UInt32(frame.encoding == 0 ? 1_000_000 + index * 3000 : 5_000 + index * 3000)
            let buffer = packet(sequence: sequence, timestamp: timestamp,
                                     payload: frame.keyframe ? [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x40, 0x01, 0xB4, 0x00] : [0x01, 0, 0])
            let fields = try #require(VP8Fields(buffer.bytes.baseAddress!, buffer.length))
            let verdict = route.admit(encoding: frame.encoding, fields: fields, frameStart: true, allowed: true)
            if verdict == .forward {
                let seq = route.rewrite(buffer.bytes.baseAddress!, fields: fields, sequence: sequence, timestamp: timestamp,
                                        now: UInt64(index) * 33_333_333)
                out.append((seq, WireBytes.be32(buffer.bytes.baseAddress!, 4), frame.encoding))
            } else {
                #expect(verdict == .ignore, "the other encoding's packets are not the leg's")
            }
        }
        #expect(out.map(\.encoding) == [1, 1, 0, 0], "the switch happened at the small encoding's keyframe")
        #expect(route.switchedTo == 0 && route.spatial == 0 && route.switches == 1)
        for (a, b) in zip(out, out.dropFirst()) {
            #expect(b.seq == a.seq &+ 1)
            let step = b.ts &- a.ts
            #expect(step > 0 && step < 1_000_000, "timestamps move forward across the switch: \(a.ts) → \(b.ts)")
        }
    }
}
