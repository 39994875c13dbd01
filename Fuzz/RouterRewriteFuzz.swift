// fuzz-sources: Sources/OTRouter/Media/RTPInPlace.swift Sources/OTRouter/Media/WireBytes.swift Sources/OTRouter/Media/LegVideoRoute.swift Sources/OTRouter/Media/LegVideoTrail.swift Sources/OTRouter/Media/UpstreamGaps.swift
import OTMedia

/// libFuzzer target: the SFU's per-leg rewriting of what a publisher sends, as
/// `ForwardingHandler` does it after SRTP, on arbitrary plaintext RTP and RTCP. The router
/// files that do it are compiled into this target (the `fuzz-sources` line), so the
/// fuzzer needs neither OTRouter's OTNet/libwebsockets nor any code moved.
///
/// Input: 4 bytes of leg state (spatial, target temporal layer, the route's starting
/// numbers), then datagrams, each `[flags][length hi][length lo][bytes…]`. Each datagram
/// of 12 bytes or more goes through, on one leg kept across the input:
/// - RTP: the transport-wide element and VP8 descriptor are read (from an allocation of
///   exactly the datagram's size, so AddressSanitizer sees any read past it), the upstream
///   gap tracker and the route decide, and a forwarded packet is copied making room
///   (`assignMakingRoom`), rewritten (`rewrite` or `rewriteLate`) and numbered
///   (`setTransportSequence`) in a pooled buffer, as for a subscriber leg;
/// - RTCP (second byte 192…223): the compound is validated and each sender report is
///   rewritten for the leg with its SDES, as `fromPublisherRTCP` does.
/// A trap or an AddressSanitizer report is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouterRewrite(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 4 else { return 0 }
    var route = LegVideoRoute(spatial: Int(data[0] % 3), on: data[0] & 0x80 != 0)
    route.targetTemporal = Int(data[1] % 4)
    route.lastSequence = UInt16(data[2]) << 8 | UInt16(data[3])
    route.pictureID = UInt16(data[3]) & 0x7FFF
    route.tl0 = data[2]
    route.pendingSpatial = Int(data[1] >> 4) % 4 - 1
    var gaps = UpstreamGaps()
    var transport: UInt16 = UInt16(data[3]) << 8
    var now: UInt64 = 1_000_000_000
    var offset = 4
    while offset + 3 <= size {
        let flags = data[offset]
        let length = min(Int(data[offset + 1]) << 8 | Int(data[offset + 2]), size - offset - 3)
        let packet = UnsafeRawBufferPointer(start: data + offset + 3, count: length)
        offset += 3 + length
        now &+= UInt64(flags & 0x3F) * 1_000_000
        guard length >= 12 else { continue }
        RouterRewriteFuzzing.exact(packet) { exact in
            let byte1 = exact.load(fromByteOffset: 1, as: UInt8.self)
            if (192...223).contains(byte1) {
                RouterRewriteFuzzing.rewriteReports(UnsafeRawBufferPointer(start: exact, count: length))
            } else {
                RouterRewriteFuzzing.forward(exact, length, flags: flags, route: &route, gaps: &gaps, transport: &transport, now: now)
            }
        }
    }
    return 0
}

/// The steps of the target, kept apart so each reads as the router's own.
enum RouterRewriteFuzzing {
    /// The leg's buffers, as a subscriber leg's pool (2048 bytes, no headroom).
    static let pool = PacketBufferPool(initialCount: 4, bufferSize: 2048, headroom: 0)
    /// The router's SDES CNAME.
    nonisolated(unsafe) static let cname = UnsafeRawBufferPointer(UnsafeMutableRawBufferPointer.allocate(byteCount: 12, alignment: 1))

    /// Runs `body` on a copy of `bytes` in an allocation of exactly their size.
    static func exact(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeMutableRawPointer) -> Void) {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 8)
        defer { copy.deallocate() }
        copy.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        body(copy)
    }

    /// `ForwardingHandler.forwardRTP` and `send` for one leg, without SRTP and sockets.
    static func forward(_ base: UnsafeMutableRawPointer, _ length: Int, flags: UInt8, route: inout LegVideoRoute,
                        gaps: inout UpstreamGaps, transport: inout UInt16, now: UInt64) {
        _ = RTPInPlace.payloadOffset(base, length)
        if let offset = RTPInPlace.transportSequenceOffset(base, length) {
            precondition(offset + 2 <= length, "the transport-wide element lies inside the packet")
            _ = WireBytes.be16(base, offset)
        }
        let sequence = WireBytes.be16(base, 2)
        let timestamp = WireBytes.be32(base, 4)
        let fields = VP8Fields(base, length) ?? VP8Fields()
        let encoding = Int(flags >> 6) % 3
        let source = UnsafeRawBufferPointer(start: base, count: length)
        guard let out = pool.take() else { return }
        defer { pool.release(out) }
        switch gaps.received(sequence, now: now) {
        case .stale: return
        case .repaired:
            guard RTPInPlace.assignMakingRoom(source, into: out) else { return }
            _ = route.rewriteLate(out.bytes.baseAddress!, encoding: encoding, fields: fields, sequence: sequence,
                                  timestamp: timestamp, shift: out.length - length)
        case .inOrder:
            switch route.admit(encoding: encoding, fields: fields, frameStart: flags & 0x20 != 0 || fields.startsFrame,
                               allowed: flags & 0x10 == 0) {
            case .ignore: return
            case .skip:
                route.record(encoding: encoding, sequence: sequence, timestamp: timestamp, forwarded: false)
                return
            case .forward: break
            }
            guard RTPInPlace.assignMakingRoom(source, into: out) else { return }
            _ = route.rewrite(out.bytes.baseAddress!, fields: fields, sequence: sequence, timestamp: timestamp, now: now,
                              shift: out.length - length)
            route.record(encoding: encoding, sequence: sequence, timestamp: timestamp, forwarded: true)
        }
        transport &+= 1
        if RTPInPlace.setTransportSequence(out, transport) {
            let offset = RTPInPlace.transportSequenceOffset(out.bytes.baseAddress!, out.length)
            precondition(offset.map { $0 + 2 <= out.length } ?? true, "the element lies inside the packet")
        }
        var missing = [UInt16](repeating: 0, count: 16)
        missing.withUnsafeMutableBufferPointer { _ = gaps.collect(now: now, into: $0) }
    }

    /// `ForwardingHandler.fromPublisherRTCP`: each sender report rewritten for the leg.
    static func rewriteReports(_ bytes: UnsafeRawBufferPointer) {
        guard let compound = try? RTCPCompoundPacket(validating: bytes) else { return }
        withUnsafeTemporaryAllocation(byteCount: 1500, alignment: 8) { scratch in
            var packets = compound.makeIterator()
            while let packet = packets.next() {
                guard case .senderReport(let report) = packet else { continue }
                let rewritten = SenderReport(ssrc: 0x1234_5678, ntpTimestamp: report.ntpTimestamp,
                                             rtpTimestamp: report.rtpTimestamp &+ 90_000, packetCount: report.packetCount,
                                             octetCount: report.octetCount)
                var writer = RTCPCompoundWriter(buffer: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(1500 - SRTPProfile.maxTrailer)]))
                do {
                    try writer.append(rewritten)
                    try writer.append(SourceDescription(ssrc: 0x1234_5678, cname: cname))
                    let written = try writer.finish()
                    guard (try? RTCPCompoundPacket(validating: UnsafeRawBufferPointer(written))) != nil else {
                        fatalError("a rewritten sender report does not parse")
                    }
                } catch {
                    fatalError("a sender report and SDES do not fit 1500 bytes: \(error)")
                }
            }
        }
    }
}
