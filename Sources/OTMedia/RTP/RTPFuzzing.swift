/// Bodies of the libFuzzer targets for the RTP-layer parsers.
///
/// Each function takes the fuzzer's input bytes, runs a parser over them and, when the
/// input parses, re-serializes the result and checks that it parses back to the same
/// thing. A parser that traps, or a round trip that disagrees (`precondition`), is a
/// finding. The fuzz targets in `Fuzz/` (built by `scripts/fuzz`) call these from
/// `LLVMFuzzerTestOneInput`; the unit tests call them too, on random and truncated
/// buffers.
///
/// Seed corpus: `FuzzSeedCorpusTests` (Tests/OTMediaTests/RTPFuzzingTests.swift) writes
/// real packets from libvpx frames in each target's input format to the directory named
/// by `OTKIT_FUZZ_SEED_DIR`, one folder per target as `scripts/fuzz` reads them
/// (`Fuzz/Corpus/RTP`, `VP8Descriptor`, `VP8Depacketize`, `Opus`).
///
/// Cost: a parse plus a write into a stack buffer the size of the input; nothing that
/// outlives the call.
public enum RTPFuzzing {
    /// Parses `data` as an RTP packet; if valid, walks its extension elements, copies
    /// the header, writes the packet again and checks the re-written header bytes and
    /// payload equal the original's and re-parse to the same fields.
    public static func parseRTP(_ data: UnsafeRawBufferPointer) {
        guard let packet = try? RTPPacket(parsing: data) else { return }
        var elementBytes = 0
        if let elements = packet.extensions {
            for element in elements { elementBytes &+= element.data.count &+ Int(element.id) }
            _ = elements.element(id: 1)
        }
        guard let header = try? RTPHeader(packet) else { return }   // extension over the inline capacity
        precondition(header.size == packet.headerLength, "RTPHeader.size disagrees with the parsed header length")
        withUnsafeTemporaryAllocation(byteCount: max(1, data.count), alignment: 8) { out in
            let written: Int
            do {
                written = try header.writePacket(payload: packet.payload, paddingCount: packet.paddingLength, into: out)
            } catch {
                preconditionFailure("re-writing a parsed packet failed: \(error)")
            }
            precondition(written == data.count, "re-written packet has another length")
            let again = UnsafeRawBufferPointer(rebasing: out[0..<written])
            for i in 0..<packet.headerLength { precondition(again[i] == data[i], "re-written header differs at byte \(i)") }
            let payload = packet.payload
            for i in 0..<payload.count { precondition(again[packet.headerLength + i] == payload[i], "re-written payload differs") }
            guard let reparsed = try? RTPPacket(parsing: again) else { preconditionFailure("re-written packet does not parse") }
            precondition(reparsed.paddingLength == packet.paddingLength && reparsed.payload.count == payload.count)
            precondition((try? RTPHeader(reparsed)) == header, "re-parsed header differs")
        }
    }
}

/// Fuzz bodies for the VP8 payload format (see `RTPFuzzing` for the contract).
public enum VP8Fuzzing {
    /// Parses `data` as a VP8 payload descriptor; if valid, writes it and checks it
    /// parses back equal, with the written length equal to `size`.
    public static func parseDescriptor(_ data: UnsafeRawBufferPointer) {
        guard let (descriptor, length) = try? VP8PayloadDescriptor.parse(data) else { return }
        precondition(length <= data.count && descriptor.size <= length, "descriptor length out of range")
        _ = try? VP8FrameHeader(parsing: data.view(length..<data.count))
        withUnsafeTemporaryAllocation(byteCount: 8, alignment: 8) { out in
            guard let written = try? descriptor.write(into: out) else { preconditionFailure("re-writing a parsed descriptor failed") }
            precondition(written == descriptor.size, "written descriptor length differs from size")
            guard let again = try? VP8PayloadDescriptor.parse(UnsafeRawBufferPointer(rebasing: out[0..<written])) else {
                preconditionFailure("re-written descriptor does not parse")
            }
            precondition(again.descriptor == descriptor && again.length == written, "re-parsed descriptor differs")
        }
    }

    /// Header size of one record in `depacketize`'s input.
    public static let recordHeaderSize = 2

    /// Feeds a stream of packets to a `VP8Depacketizer`. `data` is a sequence of records
    /// `[control][length][payload: length bytes]`; control bit 0 is the marker, bit 1
    /// starts a new RTP timestamp, bits 2-3 are added to the sequence number's step
    /// (0 = consecutive, so gaps and duplicates (step 0 via bit 4) are reachable). Checks
    /// that every emitted frame lies in the depacketizer's limits and that counters add up.
    /// Returns the number of complete frames (for tests).
    @discardableResult
    public static func depacketize(_ data: UnsafeRawBufferPointer) -> Int {
        let depacketizer = VP8Depacketizer(initialCapacity: 256, maximumFrameSize: 1 << 16)
        var offset = 0
        var sequence: UInt16 = 65_530
        var timestamp: UInt32 = 0xFFFF_FF00
        var frames = 0, incomplete = 0
        while data.count - offset >= recordHeaderSize {
            let control = data[offset]
            let length = min(Int(data[offset + 1]), data.count - offset - recordHeaderSize)
            let payload = data.view(offset + recordHeaderSize..<offset + recordHeaderSize + length)
            offset += recordHeaderSize + length
            if control & 0x10 == 0 { sequence &+= 1 &+ UInt16((control >> 2) & 3) }
            if control & 0x02 != 0 { timestamp &+= 3000 }
            depacketizer.push(payload: payload, sequenceNumber: sequence, timestamp: timestamp, marker: control & 1 != 0) { event in
                switch event {
                case let .frame(frame):
                    precondition(frame.data.count <= depacketizer.maximumFrameSize && frame.data.count >= VP8FrameHeader.interframeHeaderSize)
                    precondition(frame.rtpTimestamp == timestamp)
                    frames += 1
                case .incompleteFrame:
                    incomplete += 1
                case let .lostFrames(count, _):
                    precondition(count > 0)
                }
            }
        }
        let statistics = depacketizer.statistics
        precondition(statistics.framesCompleted == frames && statistics.framesIncomplete == incomplete, "counters disagree with events")
        return frames
    }
}

/// Fuzz body for the Opus payload validator (see `RTPFuzzing` for the contract).
public enum OpusFuzzing {
    /// Parses `data` as an Opus RTP payload and checks the derived values' ranges.
    public static func parsePayload(_ data: UnsafeRawBufferPointer) {
        guard let payload = try? OpusPayload(parsing: data) else { return }
        precondition((1...48).contains(payload.frameCount), "frame count out of range")
        precondition(payload.samples <= OpusPayload.maxPacketSamples || payload.toc.frameCountCode != 3)
        precondition(OpusTOC(payload.toc.byte) == payload.toc)
    }
}
