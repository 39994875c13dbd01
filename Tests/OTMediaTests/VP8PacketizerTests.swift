import Testing
@testable import OTMedia

/// A packetized frame: RTP packets as arrays (tests only).
struct PacketizedFrame {
    var packets: [[UInt8]]
    var frame: StoredVP8Frame
    var pictureID: UInt16
}

/// Packetizes stored frames into full RTP packets (PT 96, SSRC 1, 90 kHz timestamps
/// 3000 apart, consecutive sequence numbers from `firstSequence`).
func packetize(_ frames: [StoredVP8Frame], packetizer: inout VP8Packetizer, firstSequence: UInt16 = 0) throws -> [PacketizedFrame] {
    var sequence = firstSequence
    var out: [PacketizedFrame] = []
    var payload = [UInt8](repeating: 0, count: packetizer.maxPayloadSize)
    for (i, frame) in frames.enumerated() {
        let pictureID = packetizer.nextPictureID
        let count = try frame.bytes.withUnsafeBytes { raw throws(RTPError) in
            try packetizer.begin(raw, temporalLayer: frame.temporalLayer, layerSync: frame.layerSync,
                                 nonReference: frame.isNonReference)
        }
        var packets: [[UInt8]] = []
        while let (length, isLast) = try payload.withUnsafeMutableBytes({ raw throws(RTPError) in try packetizer.nextPacket(into: raw) }) {
            let header = RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: UInt32(i) &* 3000, ssrc: 1, marker: isLast)
            packets.append(try writeRTP(header, payload: Array(payload[0..<length])))
            sequence &+= 1
        }
        #expect(packets.count == count)
        out.append(PacketizedFrame(packets: packets, frame: frame, pictureID: pictureID))
    }
    return out
}

/// What a depacketizer reported, with frames copied out.
struct DepacketizedStream {
    var frames: [(bytes: [UInt8], frame: VP8AssembledFrame)] = []
    var incomplete: [(timestamp: UInt32, defect: VP8FrameDefect)] = []
    var lost: [(count: Int, before: UInt16)] = []
}

func depacketize(_ packets: [[UInt8]], into depacketizer: VP8Depacketizer = VP8Depacketizer()) throws -> DepacketizedStream {
    var stream = DepacketizedStream()
    for bytes in packets {
        try bytes.withUnsafeBytes { raw in
            let packet = try RTPPacket(parsing: raw)
            depacketizer.push(packet) { event in
                switch event {
                case let .frame(frame): stream.frames.append((Array(frame.data), frame))
                case let .incompleteFrame(timestamp, _, defect): stream.incomplete.append((timestamp, defect))
                case let .lostFrames(count, before): stream.lost.append((count, before))
                }
            }
        }
    }
    return stream
}

/// VP8 over RTP with real libvpx frames: packet sizes and descriptor fields, a decode
/// through packetize/depacketize identical to decoding the frames directly, and loss
/// detection (missing packets, missing first packets, whole frames, PictureID wrap).
@Suite struct VP8PacketizerTests {
    static func vgaFrames(_ count: Int, layers: Int = 1, keyframesAt: Set<Int> = []) throws -> [StoredVP8Frame] {
        var settings = VP8EncoderSettings(width: 640, height: 480, frameRate: 30, bitrateKbps: 1000)
        settings.temporalLayers = layers
        return try VP8Encoder(settings: settings).encodeSynthetic(0..<count, forceKeyframeAt: keyframesAt)
    }

    @Test func realFramesRoundTripBitExactAndDecodeIdentically() throws {
        let frames = try Self.vgaFrames(30, keyframesAt: [20])
        #expect(frames[0].isKeyframe && frames[20].isKeyframe)
        var packetizer = try VP8Packetizer(initialPictureID: 1000)
        let stream = try packetize(frames, packetizer: &packetizer, firstSequence: 65500)   // wraps the sequence too

        var expectedPictureID: UInt16 = 1000
        for p in stream {
            #expect(p.pictureID == expectedPictureID)
            expectedPictureID += 1
            var fragments: [Int] = []
            for (i, bytes) in p.packets.enumerated() {
                try withRaw(bytes) { raw in
                    let packet = try RTPPacket(parsing: raw)
                    #expect(packet.payload.count <= VP8Packetizer.defaultMaxPayloadSize)
                    #expect(packet.marker == (i == p.packets.count - 1), "marker on the last packet only")
                    let (d, length) = try VP8PayloadDescriptor.parse(packet.payload)
                    #expect(d.startOfPartition == (i == 0) && d.partitionIndex == 0, "S on the first packet only")
                    #expect(d.pictureID == p.pictureID && d.longPictureID)
                    #expect(d.tl0PicIdx == nil && d.temporalLayer == nil)
                    fragments.append(packet.payload.count - length)
                }
            }
            #expect(fragments.reduce(0, +) == p.frame.bytes.count)
            #expect(fragments.max()! - fragments.min()! <= 1, "fragments are balanced: \(fragments)")
        }
        let keyframePackets = stream[0].packets.count
        #expect(keyframePackets >= 3, "a VGA keyframe at 1 Mbps takes several packets (\(keyframePackets))")
        print("VP8 640x480 1 Mbps: keyframe \(stream[0].frame.bytes.count) bytes in \(keyframePackets) packets")

        let depacketizer = VP8Depacketizer(initialCapacity: 1024)
        let out = try depacketize(stream.flatMap(\.packets), into: depacketizer)
        #expect(out.incomplete.isEmpty && out.lost.isEmpty)
        try #require(out.frames.count == frames.count)
        let direct = try VP8Decoder(), viaRTP = try VP8Decoder()
        for (i, (bytes, assembled)) in out.frames.enumerated() {
            #expect(bytes == frames[i].bytes, "frame \(i) reassembled bit-exact")
            #expect(assembled.isKeyframe == frames[i].isKeyframe)
            #expect(assembled.pictureID == 1000 + UInt16(i))
            #expect(assembled.rtpTimestamp == UInt32(i) * 3000)
            #expect(assembled.width == 640 && assembled.height == 480)
            let a = try #require(try direct.decode(frames[i]))
            let b = try #require(try viaRTP.decode(bytes: bytes))
            #expect(VideoQuality.psnrYUV(a, b) == 100, "frame \(i) decodes identically")
        }
        #expect(depacketizer.statistics.framesCompleted == 30 && depacketizer.statistics.keyframes == 2)
        // The buffer grew to the largest frame (at most doubling past it) and stays there.
        let largest = frames.map(\.bytes.count).max()!
        #expect(depacketizer.capacity >= largest && depacketizer.capacity < 2 * largest)
        let capacity = depacketizer.capacity
        _ = try depacketize(stream.flatMap(\.packets), into: depacketizer)
        #expect(depacketizer.capacity == capacity)
    }

    @Test(arguments: [100, 300, 1200])
    func everyPacketFitsTheMTU(maxPayloadSize: Int) throws {
        let frames = try Self.vgaFrames(3)
        var packetizer = try VP8Packetizer(maxPayloadSize: maxPayloadSize, initialPictureID: 0)
        let stream = try packetize(frames, packetizer: &packetizer)
        for p in stream {
            // The fewest packets possible: ceil(frame / (MTU - 4-byte descriptor)).
            #expect(p.packets.count == (p.frame.bytes.count + maxPayloadSize - 5) / (maxPayloadSize - 4))
            for bytes in p.packets { #expect(bytes.count - 12 <= maxPayloadSize) }
        }
        #expect(try depacketize(stream.flatMap(\.packets)).frames.map(\.bytes) == frames.map(\.bytes))
    }

    @Test func packetizerRejectsTinyMTUAndSmallBuffers() throws {
        #expect(throws: RTPError.self) { _ = try VP8Packetizer(maxPayloadSize: 6) }
        var packetizer = try VP8Packetizer(maxPayloadSize: 100, initialPictureID: 0)
        let frame = [UInt8](repeating: 0x31, count: 150)
        _ = try frame.withUnsafeBytes { raw throws(RTPError) in try packetizer.begin(raw) }
        #expect(packetizer.remainingPackets == 2)
        var small = [UInt8](repeating: 0, count: 50)
        #expect(throws: RTPError.bufferTooSmall(needed: 79, available: 50)) {
            _ = try small.withUnsafeMutableBytes { raw throws(RTPError) in try packetizer.nextPacket(into: raw) }
        }
        #expect(packetizer.remainingPackets == 2, "a refused buffer consumes nothing")
    }

    @Test func lostMiddlePacketIsReportedNotEmitted() throws {
        let frames = try Self.vgaFrames(4)
        var packetizer = try VP8Packetizer(initialPictureID: 7)
        let stream = try packetize(frames, packetizer: &packetizer)
        try #require(stream[0].packets.count >= 3)
        var packets = stream.flatMap(\.packets)
        packets.remove(at: stream[0].packets.count / 2)
        let out = try depacketize(packets)
        #expect(out.incomplete.count == 1)
        #expect(out.incomplete.first?.timestamp == 0 && out.incomplete.first?.defect == .missingPackets)
        #expect(!out.frames.contains { $0.frame.rtpTimestamp == 0 }, "the damaged frame is not emitted")
        #expect(out.frames.count == 3 && out.lost.isEmpty)
    }

    @Test func lostFirstAndLastPacketsAreReported() throws {
        let frames = try Self.vgaFrames(3)
        var packetizer = try VP8Packetizer(initialPictureID: 7)
        let stream = try packetize(frames, packetizer: &packetizer)
        // Frame 0 loses its first packet.
        var packets = stream.flatMap(\.packets)
        packets.removeFirst()
        var out = try depacketize(packets)
        #expect(out.incomplete.map(\.defect) == [.missingFirstPacket])
        #expect(out.frames.count == 2 && out.lost.isEmpty, "a partly received frame is not a lost frame")
        // Frame 0 loses its marker packet: found when frame 1 starts.
        packets = stream.flatMap(\.packets)
        packets.remove(at: stream[0].packets.count - 1)
        out = try depacketize(packets)
        #expect(out.incomplete.map(\.defect) == [.missingPackets] && out.incomplete.first?.timestamp == 0)
        #expect(out.frames.map(\.frame.rtpTimestamp) == [3000, 6000])
    }

    @Test func pictureIDWrapIsNotAGap() throws {
        let frames = try Self.vgaFrames(5)
        var packetizer = try VP8Packetizer(initialPictureID: 32766)
        let stream = try packetize(frames, packetizer: &packetizer)
        #expect(stream.map(\.pictureID) == [32766, 32767, 0, 1, 2])
        let out = try depacketize(stream.flatMap(\.packets))
        #expect(out.lost.isEmpty && out.incomplete.isEmpty)
        #expect(out.frames.map(\.frame.pictureID) == [32766, 32767, 0, 1, 2])
    }

    @Test(arguments: [(UInt16(100), 2), (32767, 1)])
    func wholeLostFrameIsFoundFromThePictureID(initial: UInt16, dropped: Int) throws {
        let frames = try Self.vgaFrames(5)
        var packetizer = try VP8Packetizer(initialPictureID: initial)
        var stream = try packetize(frames, packetizer: &packetizer)
        let next = stream[dropped + 1].pictureID
        stream.remove(at: dropped)
        let out = try depacketize(stream.flatMap(\.packets))
        #expect(out.lost.count == 1 && out.lost.first?.count == 1 && out.lost.first?.before == next)
        #expect(out.incomplete.isEmpty, "the frames around the gap are complete")
        #expect(out.frames.count == 4)
    }

    @Test(arguments: [2, 3])
    func temporalLayerFieldsAreCarried(layers: Int) throws {
        let frames = try Self.vgaFrames(12, layers: layers)
        let pattern = layers == 2 ? [0, 1] : [0, 2, 1, 2]
        #expect(frames.map(\.temporalLayer) == (0..<12).map { pattern[$0 % pattern.count] })
        var packetizer = try VP8Packetizer(temporalLayers: true, initialPictureID: 0, initialTL0PicIdx: 255)
        let stream = try packetize(frames, packetizer: &packetizer)
        let out = try depacketize(stream.flatMap(\.packets))
        try #require(out.frames.count == 12)
        // TL0PICIDX steps on each TID 0 frame (255 wraps to 0 on the first) and higher
        // layers repeat the last base-layer value.
        var tl0: UInt8 = 255
        for (i, f) in out.frames.enumerated() {
            if frames[i].temporalLayer == 0 { tl0 &+= 1 }
            #expect(f.frame.temporalLayer == UInt8(frames[i].temporalLayer))
            #expect(f.frame.tl0PicIdx == tl0)
            #expect(f.frame.layerSync == frames[i].layerSync)
        }
        #expect(out.frames.map(\.frame.tl0PicIdx) == (0..<12).map { UInt8(truncatingIfNeeded: $0 / pattern.count) })
        // The first frame of each upper layer after the keyframe is a sync frame.
        #expect(out.frames[1].frame.layerSync)
        // N rides on every packet of a frame that updates no reference buffer.
        for f in stream {
            for bytes in f.packets {
                let n = try bytes.withUnsafeBytes { raw in
                    try VP8PayloadDescriptor.parse(RTPPacket(parsing: raw).payload).descriptor.nonReference
                }
                #expect(n == f.frame.isNonReference)
            }
        }
        #expect(stream.contains { $0.frame.isNonReference }, "upper-layer frames update nothing")
    }

    @Test func duplicatesAreIgnoredAndGarbageIsReported() throws {
        let frames = try Self.vgaFrames(2)
        var packetizer = try VP8Packetizer(initialPictureID: 0)
        let stream = try packetize(frames, packetizer: &packetizer)
        var packets = stream.flatMap(\.packets)
        packets.insert(packets[0], at: 1)
        let depacketizer = VP8Depacketizer()
        var out = try depacketize(packets, into: depacketizer)
        #expect(out.frames.count == 2 && depacketizer.statistics.duplicatePackets == 1)
        // A single-packet "frame" whose VP8 data is not a valid frame tag.
        let header = RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 1, ssrc: 1, marker: true)
        out = try depacketize([try writeRTP(header, payload: [0x10, 0x00])], into: VP8Depacketizer())
        #expect(out.incomplete.map(\.defect) == [.invalidPayload] && out.frames.isEmpty)
    }
}
