/// Entry points for libFuzzer targets over the RTCP code.
///
/// A fuzz target is a tiny executable built with `swiftc -sanitize=fuzzer` whose
/// `LLVMFuzzerTestOneInput(data, size)` wraps the bytes in an `UnsafeRawBufferPointer` and
/// calls `RTCPFuzzing.parseCompound`. The body is here, in the library, so the unit tests
/// run the very same code over random and truncated inputs.
public enum RTCPFuzzing {
    /// The libFuzzer target body for RTCP: classifies the datagram, validates it as a
    /// compound, decodes every packet (walking every list, SDES item, NACK number and TWCC
    /// status), writes each decoded packet back into a stack buffer, parses that again and
    /// checks it equals the original. Returns the number of packets that survived the
    /// round trip.
    ///
    /// Malformed input is expected and simply ends the work; the only traps are the
    /// invariant checks (`write` must produce `size` bytes, and parse(write(p)) == p),
    /// which are bugs for the fuzzer to find. Cost: O(input); allocates nothing on the heap.
    @discardableResult
    public static func parseCompound(_ data: UnsafeRawBufferPointer) -> Int {
        _ = PacketClassifier.classify(data)
        // Each decoded packet is also parsed on its own, whatever the compound says.
        _ = RTCPPacket(parsing: data)
        guard let compound = try? RTCPCompoundPacket(validating: data) else { return 0 }
        _ = compound.isReducedSize
        var roundTrips = 0
        withUnsafeTemporaryAllocation(byteCount: max(data.count, 64) + 64, alignment: 8) { scratch in
            for packet in compound {
                if roundTrip(packet, scratch: scratch) { roundTrips += 1 }
            }
        }
        return roundTrips
    }

    /// Walks everything in `packet`, writes it, re-parses it and checks equality.
    static func roundTrip(_ packet: RTCPPacket, scratch: UnsafeMutableRawBufferPointer) -> Bool {
        switch packet {
        case let .senderReport(report):
            for block in report.reportBlocks { _ = block.cumulativeLost }
            return check(report, scratch) { bytes throws(RTCPError) in try SenderReport(parsing: bytes) }
        case let .receiverReport(report):
            for block in report.reportBlocks { _ = block.cumulativeLost }
            return check(report, scratch) { bytes throws(RTCPError) in try ReceiverReport(parsing: bytes) }
        case let .sourceDescription(description):
            for chunk in description.chunks { for item in chunk { _ = item.value.count } }
            return check(description, scratch) { bytes throws(RTCPError) in try SourceDescription(parsing: bytes) }
        case let .goodbye(goodbye):
            for source in goodbye.sources { _ = source }
            return check(goodbye, scratch) { bytes throws(RTCPError) in try Goodbye(parsing: bytes) }
        case let .genericNACK(nack):
            for number in nack.lostSequenceNumbers { _ = number }
            return check(nack, scratch) { bytes throws(RTCPError) in try GenericNACK(parsing: bytes) }
        case let .transportWideFeedback(feedback):
            var described = 0
            for status in feedback.packets { described += 1; _ = status.arrivalMicroseconds }
            precondition(described == Int(feedback.packetStatusCount), "TWCC iteration lost statuses")
            return check(feedback, scratch) { bytes throws(RTCPError) in try TransportWideCCFeedback(parsing: bytes) }
        case let .pictureLossIndication(pli):
            return check(pli, scratch) { bytes throws(RTCPError) in try PictureLossIndication(parsing: bytes) }
        case let .fullIntraRequest(fir):
            for entry in fir.entries { _ = entry }
            return check(fir, scratch) { bytes throws(RTCPError) in try FullIntraRequest(parsing: bytes) }
        case let .receiverEstimatedMaxBitrate(remb):
            _ = remb.bitrate
            for ssrc in remb.ssrcs { _ = ssrc }
            return check(remb, scratch) { bytes throws(RTCPError) in try ReceiverEstimatedMaxBitrate(parsing: bytes) }
        case .unknown, .malformed:
            return false
        }
    }

    /// Writes `packet`, checks the byte count against `size`, parses it back and checks it
    /// equals `packet`. A packet too big for the scratch buffer or not writable (e.g. an SR
    /// whose extension is not word-aligned after odd padding) is not a failure.
    static func check<P: RTCPPacketWriting & Equatable>(
        _ packet: P, _ scratch: UnsafeMutableRawBufferPointer,
        parse: (UnsafeRawBufferPointer) throws(RTCPError) -> P
    ) -> Bool {
        let written: Int
        do {
            written = try packet.write(into: scratch)
        } catch {
            return false
        }
        precondition(written == packet.size, "RTCP write(into:) disagrees with size")
        let reparsed: P
        do {
            reparsed = try parse(UnsafeRawBufferPointer(rebasing: scratch[0 ..< written]))
        } catch {
            preconditionFailure("RTCP packet written by OTKit does not parse: \(error)")
        }
        precondition(reparsed == packet, "RTCP round trip changed the packet")
        return true
    }
}
