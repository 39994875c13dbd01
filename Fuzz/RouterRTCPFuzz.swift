// fuzz-sources: Sources/OTRouter/Media/*.swift Sources/OTRouter/Edge/*.swift Sources/OTRouter/Logging/*.swift Sources/OTRouter/Cluster/Cascade/CascadeControl.swift Sources/OTRouter/Cluster/Cascade/CascadeControlRequest.swift Sources/OTRouter/Cluster/Cascade/CascadeCounters.swift Sources/OTRouter/Cluster/Cascade/CascadeEgressKey.swift Sources/OTRouter/Cluster/Cascade/CascadeIngress.swift Sources/OTRouter/Cluster/Cascade/CascadeIngressLink.swift Sources/OTRouter/Cluster/Cascade/CascadeOrigin.swift Sources/OTRouter/Cluster/Cascade/MediaRouter+CascadeEgress.swift Sources/OTRouter/Cluster/Cascade/MediaRouter+CascadeIngress.swift
import OTMedia

/// libFuzzer target: what a subscriber sends on its leg, authenticated, into the SFU's
/// forwarding handler. The router's media plane (`Sources/OTRouter/Media`, which needs
/// only OTMedia and OTSignaling) is compiled into this target, so the fuzzer runs the
/// real `ForwardingHandler` without OTNet/libwebsockets and without moving router code.
///
/// Each input is one RTCP compound as the subscriber would send it (the version bits are
/// forced to 2 and it is padded to 8 bytes, what SRTCP needs). It is protected with the
/// leg's client keys, sent over loopback UDP to the leg's socket and read by the
/// handler's own entry point (`socketReadable`): SRTCP unprotect, RTCP validation, then
/// RR, TWCC (the base sequence is taken relative to the leg's newest transport-wide
/// number, so feedback names packets the leg sent; a zero SSRC at bytes 8–11, the media
/// SSRC of feedback or the first report block's, becomes the leg's video SSRC), NACK,
/// PLI/FIR into the leg's state.
/// Every 64 inputs some video goes out on the leg and the handler's timers run (the
/// adaptation rounds over what the feedback left). A trap or an AddressSanitizer report
/// is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouterRTCP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RouterRTCPFuzzing.shared.run(UnsafeRawBufferPointer(start: data, count: min(size, 1400)))
    return 0
}

/// One subscriber leg and a handler of its own, driven from the fuzzer's thread.
final class RouterRTCPFuzzing {
    nonisolated(unsafe) static let shared = try! RouterRTCPFuzzing()

    let group: ForwardingGroup
    let leg: SubscriberLeg
    let handler: ForwardingHandler
    let client: UDPSocket
    let sender: SRTPSession
    let pool = PacketBufferPool(initialCount: 48, bufferSize: 2048, headroom: 0)
    let batch = UDPMessageBatch(capacity: 32)
    var now: UInt64 = 1_000_000_000
    var runs = 0

    init() throws {
        var ssrcs = SSRCAllocator()
        let loopback = SocketAddress.ipv4Loopback()
        group = try ForwardingGroup(publisher: try PublisherLeg(streamId: "s1", bindingTo: loopback, host: "127.0.0.1",
                                                                profile: .default, audio: true, video: true, ssrcs: &ssrcs))
        // In no group: only this handler, on the fuzzer's thread, touches it.
        leg = try SubscriberLeg(subscriberId: "fuzz", bindingTo: loopback, host: "127.0.0.1", profile: .default, audio: true,
                                video: true, carriesAudio: true, carriesVideo: true, ssrcs: &ssrcs)
        handler = ForwardingHandler(group: group, subscribers: [leg])
        client = try UDPSocket(bindingTo: loopback, receiveBufferBytes: 1 << 16, sendBufferBytes: 1 << 20)
        sender = try SRTPSession(keys: try SRTPKeyMaterial(profile: .default, base64: leg.wire.clientKey ?? ""), direction: .sender)
    }

    func run(_ input: UnsafeRawBufferPointer) {
        runs += 1
        now += 1_000_000
        if runs % 64 == 0 { media() }
        guard let buffer = pool.take() else { return }
        defer { pool.release(buffer) }
        let region = buffer.writableBytes
        let length = max(8, input.count)
        region.initializeMemory(as: UInt8.self, repeating: 0)
        if let base = input.baseAddress { region.baseAddress!.copyMemory(from: base, byteCount: input.count) }
        region[0] = 0x80 | region[0] & 0x3F
        if length >= 16, region[1] == 205, region[0] & 0x1F == 15 {  // TWCC: base relative to the newest sent
            let base = (UInt16(region[12]) << 8 | UInt16(region[13])) &+ UInt16(truncatingIfNeeded: leg.adaptation.transport.next)
            region[12] = UInt8(base >> 8)
            region[13] = UInt8(base & 0xFF)
        }
        // The SRTCP sender SSRC is pinned: libsrtp adds a stream per new SSRC and searches
        // them linearly, so random ones made each input slower than the last (from 2,000
        // to 120 exec/s within 500,000 inputs) — a router issue of its own, not fuzzed here.
        let senderSSRC = leg.videoSSRC &+ 1
        region[4] = UInt8(senderSSRC >> 24); region[5] = UInt8(senderSSRC >> 16 & 0xFF)
        region[6] = UInt8(senderSSRC >> 8 & 0xFF); region[7] = UInt8(senderSSRC & 0xFF)
        if length >= 12, region[8] | region[9] | region[10] | region[11] == 0 {  // SSRC 0 at 8: the leg's video
            let ssrc = leg.videoSSRC
            region[8] = UInt8(ssrc >> 24); region[9] = UInt8(ssrc >> 16 & 0xFF)
            region[10] = UInt8(ssrc >> 8 & 0xFF); region[11] = UInt8(ssrc & 0xFF)
        }
        guard let protected = try? sender.protectRTCP(region, length: length) else { return }
        buffer.setLength(protected)
        buffer.peer = leg.socket.localAddress
        _ = try? client.send([buffer], batch: batch)
        handler.socketReadable(1, now: now)
    }

    /// Video on the leg (so feedback and NACKs find packets), the leg's queue flushed, what
    /// came back to the client dropped, and the handler's timers.
    private func media() {
        if let address = leg.address {
            for index in 0..<8 {
                guard let out = leg.pool.take() else { break }
                let sequence = UInt16(truncatingIfNeeded: runs / 8 + index)
                let ssrc = leg.videoSSRC
                let bytes: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x10, 0,
                                      UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF),
                                      0x90, 0x80, 0x01, 0x01, 0x00, 0x00] + [UInt8](repeating: 0x55, count: 100)
                bytes.withUnsafeBytes { _ = out.assign($0) }
                handler.send(out, on: leg, to: address, kind: .video, now: now)
            }
            handler.flush(leg, now: now)
        }
        var buffers: [PacketBuffer] = []
        for _ in 0..<32 { if let b = pool.take() { buffers.append(b) } }
        while case .processed(let n)? = try? client.receive(into: buffers, batch: batch), n > 0 {
            for b in buffers { b.reset() }
        }
        for b in buffers { pool.release(b) }
        _ = handler.runTimers(now: now)
    }
}
