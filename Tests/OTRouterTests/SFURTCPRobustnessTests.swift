import Foundation
import OTMedia
@testable import OTRouter
import OTSignaling
import OTTestSupport
import Synchronization
import Testing

/// Authenticated garbage from a subscriber: RTCP with random field values, protected
/// with the subscriber leg's own keys so it passes SRTCP and reaches the parsers and the
/// leg's adaptation (RR, SR, TWCC, NACK, PLI, FIR, REMB and compounds of them, a share
/// cut short or bit-flipped after framing). A crafted TWCC once overflowed
/// `ticks × 250 000` in `TransportFeedbackAdapter` and killed the router; the reference
/// time here creeps forward in part of the feedback to get there.
///
/// - A million cases through a subscriber leg's real socket and the forwarding handler's
///   own entry point (`socketReadable`), called from the test thread in batches of 32;
///   the leg then joins a live group and the group forwards a real publisher to it and to
///   a second subscriber. (About 25 s in a debug build on the shared 2-core machine; the
///   libFuzzer target `Fuzz/RouterRTCPFuzz.swift` drives the same entry point.)
/// - 20 000 cases at a live group's subscriber leg over UDP while a real publisher
///   streams to a second subscriber, which keeps decoding.
@Suite(.serialized) struct SFURTCPRobustnessTests {
    static let directCases = 1_000_000
    static let liveCases = 20_000

    @Test func randomAuthenticatedRTCPThroughTheSubscriberEntryPointThenTheLegForwards() throws {
        var ssrcs = SSRCAllocator()
        let loopback = SocketAddress.ipv4Loopback()
        let publisherLeg = try PublisherLeg(streamId: "s1", bindingTo: loopback, host: "127.0.0.1", profile: .default,
                                            audio: true, video: true, ssrcs: &ssrcs)
        let group = try ForwardingGroup(publisher: publisherLeg)
        defer { group.stop() }
        let victim = try SubscriberLeg(subscriberId: "victim", bindingTo: loopback, host: "127.0.0.1", profile: .default,
                                       audio: true, video: true, carriesAudio: true, carriesVideo: true, ssrcs: &ssrcs)
        // The leg is driven here, on this thread, by a handler of its own: it is in no
        // group yet, so no forwarding thread touches it.
        let handler = ForwardingHandler(group: group, subscribers: [victim])
        let client = try RTCPClient(leg: victim.wire)
        defer { client.close() }
        var random = SeededRandom(seed: 0x5EED_0001)
        var garbage = RandomRTCP(videoSSRC: victim.videoSSRC, audioSSRC: victim.audioSSRC)
        let rtp = PacketBufferPool(initialCount: 16, bufferSize: 2048, headroom: 0)
        var now: UInt64 = 1_000_000_000
        var sent = 0
        while sent < Self.directCases {
            // Media on the leg first, so feedback and NACKs name packets it really sent.
            if sent % 2048 == 0, let address = victim.address {
                for _ in 0..<8 {
                    guard let out = rtp.take() else { break }
                    RandomRTCP.videoPacket(into: out, ssrc: victim.videoSSRC, sequence: UInt16(truncatingIfNeeded: sent / 256))
                    handler.send(out, on: victim, to: address, kind: .video, now: now)
                }
                handler.flush(victim, now: now)
                client.drain()
            }
            garbage.newestTransport = UInt16(truncatingIfNeeded: victim.adaptation.transport.next)
            let count = min(32, Self.directCases - sent)
            try client.send(count) { bytes in garbage.compound(into: bytes, random: &random) }
            sent += count
            now += 1_000_000
            handler.socketReadable(1, now: now)
            if sent % 65_536 < 32 { _ = handler.runTimers(now: now) }
        }
        let counters = group.counters.snapshot()
        let cases = UInt64(sent)
        // A flipped second byte no longer classifies as RTCP: bad before it is counted in.
        #expect(counters.packetsIn + counters.badPackets >= cases && counters.packetsIn >= cases * 9 / 10,
                "every case was read: \(counters.packetsIn) in, \(counters.badPackets) bad, of \(sent)")
        #expect(counters.transportFeedbacksIn > cases / 10 && counters.receiverReports > cases / 10, "\(counters)")
        #expect(counters.badPackets > cases / 100, "cut and flipped cases are counted as bad: \(counters.badPackets)")
        #expect(garbage.farReference, "the reference time went past where ticks × 250 000 overflowed")

        // The leg that took all that joins the live group with a second subscriber; a real
        // publisher reaches both.
        let second = try SubscriberLeg(subscriberId: "second", bindingTo: loopback, host: "127.0.0.1", profile: .default,
                                       audio: true, video: true, carriesAudio: true, carriesVideo: true, ssrcs: &ssrcs)
        try group.add(victim)
        try group.add(second)
        let watcher = try TestSubscriber(leg: second.wire)
        let publisher = try TestPublisher(leg: publisherLeg.wire)
        defer { publisher.stop(); watcher.stop() }
        let frames = publisher.framesSent(30..<60)
        #expect(waitUntil(seconds: 10) { watcher.decoded.share(of: frames) >= 0.9 },
                "the second subscriber decodes: \(watcher.decoded.share(of: frames))")
    }

    @Test func randomAuthenticatedRTCPAtALiveGroupOverUDP() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addAVPublisher()
        let victimLeg = try router.addAVSubscriber("victim")
        let watcherLeg = try router.addAVSubscriber("watcher")
        defer { router.removePublisher(streamId: "s1") }
        let watcher = try TestSubscriber(leg: watcherLeg)
        let publisher = try TestPublisher(leg: publisherLeg)
        let client = try RTCPClient(leg: victimLeg)
        defer { publisher.stop(); watcher.stop(); client.close() }
        var random = SeededRandom(seed: 0x5EED_0002)
        var garbage = RandomRTCP(videoSSRC: try #require(victimLeg.videoSSRC), audioSSRC: try #require(victimLeg.audioSSRC))
        _ = publisher.framesSent(0..<10)
        var sent = 0
        while sent < Self.liveCases {
            try client.send(32) { bytes in garbage.compound(into: bytes, random: &random) }
            sent += 32
            client.drain()
            if sent % 1024 == 0 { Thread.sleep(forTimeInterval: 0.002) }  // the leg's socket buffer drains
        }
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(counters.transportFeedbacksIn > 1_000, "the cases reached the leg: \(counters)")
        let start = publisher.sent.count
        let frames = publisher.framesSent(start..<(start + 30))
        #expect(waitUntil(seconds: 10) { watcher.decoded.share(of: frames) >= 0.9 },
                "the other subscriber still decodes: \(watcher.decoded.share(of: frames))")
    }
}

/// A subscriber's RTCP sender: protects what `fill` writes with the leg's client keys and
/// sends it to the leg in one `sendmmsg`; reads and drops what the router sends back.
final class RTCPClient {
    let socket: UDPSocket
    let sender: SRTPSession
    let destination: SocketAddress
    let pool = PacketBufferPool(initialCount: 64, bufferSize: 2048, headroom: 0)
    let batch = UDPMessageBatch(capacity: 32)
    private var buffers: [PacketBuffer] = []

    init(leg: WireMediaLeg) throws {
        socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 20, sendBufferBytes: 4 << 20)
        sender = try SRTPSession(keys: try LegClient.keys(leg).send, direction: .sender)
        destination = try LegClient.address(leg)
        for _ in 0..<32 { buffers.append(try #require(pool.take())) }
    }

    /// Sends `count` (≤ 32) compounds, each written by `fill` into a buffer (returning
    /// its length), SRTCP-protected.
    func send(_ count: Int, fill: (UnsafeMutableRawBufferPointer) -> Int) throws {
        for buffer in buffers.prefix(count) {
            buffer.reset()
            let region = buffer.writableBytes
            let length = fill(UnsafeMutableRawBufferPointer(rebasing: region[0..<(region.count - SRTPProfile.maxTrailer - 4)]))
            buffer.setLength(try sender.protectRTCP(buffer.writableBytes, length: length))
            buffer.peer = destination
        }
        _ = try socket.send(buffers, maximum: count, batch: batch)
    }

    /// Reads whatever arrived (retransmissions, reports) and drops it.
    func drain() {
        while case .processed(let n)? = try? socket.receive(into: buffers, batch: batch), n > 0 {
            for buffer in buffers { buffer.reset() }
        }
    }

    func close() { socket.close() }
}

/// The seeded generator these tests use, so a failing case can be replayed.
typealias SeededRandom = SplitMix64

/// Structured but random RTCP for one subscriber leg: each packet's framing is right (so
/// the parsers go past it) and its fields are random, with the leg's SSRCs most of the
/// time and the TWCC base near what the leg sent.
struct RandomRTCP {
    let videoSSRC: UInt32
    let audioSSRC: UInt32
    /// The leg's next transport-wide number (the caller keeps it current).
    var newestTransport: UInt16 = 0
    /// The TWCC reference time, stepped forward by the most that still unwraps forward
    /// in part of the feedback, and at random otherwise.
    private var reference: UInt32 = 0
    private var referenceSteps: UInt64 = 0
    private var count: UInt8 = 0

    init(videoSSRC: UInt32, audioSSRC: UInt32) {
        self.videoSSRC = videoSSRC
        self.audioSSRC = audioSSRC
    }

    /// The SSRC every compound is sent under (the first packet's sender).
    static let senderSSRC: UInt32 = 0x0C11_E417

    /// Whether the unwrapped reference went past 2^64 / 250 000 ticks (34 360 × 2^23 × 256).
    var farReference: Bool { referenceSteps > 40_000 }

    /// Writes a compound of one to four packets into `out`; returns its length. About one
    /// in eight is then cut short or has a bit flipped.
    mutating func compound(into out: UnsafeMutableRawBufferPointer, random: inout SeededRandom) -> Int {
        var length = 0
        for _ in 0..<(1 + Int(random.next() % 4)) {
            guard out.count - length >= 256 else { break }
            length += packet(into: UnsafeMutableRawBufferPointer(rebasing: out[length...]), random: &random)
        }
        // One SRTCP sender SSRC: libsrtp keeps a stream per SSRC it sees and searches them
        // linearly, so random ones make every case slower than the last (a separate issue).
        out.storeBytes(of: Self.senderSSRC.bigEndian, toByteOffset: 4, as: UInt32.self)
        switch random.next() % 16 {
        // SRTCP needs the first 8 bytes (version 2, the SSRC): cuts and flips come after
        // the version bits.
        case 0 where length > 8: length = 8 + Int(random.next() % UInt64(length - 8))
        case 1: out[1 + Int(random.next() % UInt64(length - 1))] ^= UInt8(1 << (random.next() % 8))
        default: break
        }
        return length
    }

    private func ssrc(_ random: inout SeededRandom) -> UInt32 {
        switch random.next() % 4 {
        case 0: return audioSSRC
        case 3: return UInt32(truncatingIfNeeded: random.next())
        default: return videoSSRC
        }
    }

    /// One packet: RR, SR, TWCC, NACK, PLI, FIR or REMB, with random fields.
    private mutating func packet(into out: UnsafeMutableRawBufferPointer, random: inout SeededRandom) -> Int {
        var w = Writer(out)
        switch random.next() % 8 {
        case 0, 1:  // RR or SR with up to 3 report blocks
            let sender = random.next() % 2 == 0
            let blocks = Int(random.next() % 4)
            w.u8(0x80 | UInt8(blocks)); w.u8(sender ? 200 : 201); w.u16(UInt16((sender ? 6 : 1) + 6 * blocks))
            w.u32(ssrc(&random))
            if sender { for _ in 0..<5 { w.u32(UInt32(truncatingIfNeeded: random.next())) } }
            for _ in 0..<blocks {
                w.u32(ssrc(&random))
                for _ in 0..<5 { w.u32(UInt32(truncatingIfNeeded: random.next())) }
            }
        case 2, 3, 4:
            transportFeedback(&w, random: &random)
        case 5:  // generic NACK, 1…8 entries
            let entries = 1 + Int(random.next() % 8)
            w.u8(0x81); w.u8(205); w.u16(UInt16(2 + entries))
            w.u32(1); w.u32(ssrc(&random))
            for _ in 0..<entries { w.u32(UInt32(truncatingIfNeeded: random.next())) }
        case 6:  // PLI or FIR
            if random.next() % 2 == 0 {
                w.u8(0x81); w.u8(206); w.u16(2); w.u32(1); w.u32(ssrc(&random))
            } else {
                let entries = 1 + Int(random.next() % 3)
                w.u8(0x84); w.u8(206); w.u16(UInt16(2 + 2 * entries)); w.u32(1); w.u32(0)
                for _ in 0..<entries { w.u32(ssrc(&random)); w.u32(UInt32(truncatingIfNeeded: random.next()) & 0xFF00_0000) }
            }
        default:  // REMB with random exponent and mantissa
            let ssrcs = 1 + Int(random.next() % 3)
            w.u8(0x8F); w.u8(206); w.u16(UInt16(4 + ssrcs)); w.u32(1); w.u32(0)
            w.u32(0x5245_4D42)
            w.u32(UInt32(ssrcs) << 24 | UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF)
            for _ in 0..<ssrcs { w.u32(ssrc(&random)) }
        }
        return w.offset
    }

    /// TWCC (PT 205 FMT 15): a base near the leg's newest number, 1…56 statuses in 2-bit
    /// vector chunks with random symbols and deltas.
    private mutating func transportFeedback(_ w: inout Writer, random: inout SeededRandom) {
        let start = w.offset
        w.u8(0x8F); w.u8(205); w.u16(0)
        w.u32(1); w.u32(ssrc(&random))
        let chunks = 1 + Int(random.next() % 8)
        let statuses = 7 * chunks - Int(random.next() % 7)
        let base = random.next() % 8 == 0 ? UInt16(truncatingIfNeeded: random.next())
                                          : newestTransport &- UInt16(truncatingIfNeeded: random.next() % 96)
        w.u16(base); w.u16(UInt16(statuses))
        if random.next() % 8 != 0 {
            reference = (reference + (1 << 23) - 1) & 0xFF_FFFF  // as far forward as unwraps forward
            referenceSteps += 1
        } else {
            reference = UInt32(truncatingIfNeeded: random.next()) & 0xFF_FFFF
        }
        count &+= 1
        w.u32(reference << 8 | UInt32(count))
        var symbols: [UInt8] = []
        for _ in 0..<chunks {
            var chunk: UInt16 = 0xC000
            for slot in 0..<7 {
                let symbol = UInt8(random.next() % 3)
                chunk |= UInt16(symbol) << (12 - 2 * slot)
                symbols.append(symbol)
            }
            w.u16(chunk)
        }
        for symbol in symbols.prefix(statuses) {
            if symbol == 1 { w.u8(UInt8(truncatingIfNeeded: random.next())) }
            if symbol == 2 { w.u16(UInt16(truncatingIfNeeded: random.next())) }
        }
        while (w.offset - start) % 4 != 0 { w.u8(0) }
        let words = (w.offset - start) / 4 - 1
        w.out[start + 2] = UInt8(words >> 8)
        w.out[start + 3] = UInt8(words & 0xFF)
    }

    /// A plain RTP video packet (a VP8 inter frame) for the leg's history.
    static func videoPacket(into buffer: PacketBuffer, ssrc: UInt32, sequence: UInt16) {
        buffer.reset()
        let bytes: [UInt8] = [0x80, 96, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0x10, 0,
                              UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF),
                              0x90, 0x80, 0x01, 0x01, 0x00, 0x00] + [UInt8](repeating: 0x55, count: 100)
        bytes.withUnsafeBytes { _ = buffer.assign($0) }
    }

    /// Big-endian writes at a moving offset.
    struct Writer {
        let out: UnsafeMutableRawBufferPointer
        var offset = 0
        init(_ out: UnsafeMutableRawBufferPointer) { self.out = out }
        mutating func u8(_ v: UInt8) { out[offset] = v; offset += 1 }
        mutating func u16(_ v: UInt16) { u8(UInt8(v >> 8)); u8(UInt8(v & 0xFF)) }
        mutating func u32(_ v: UInt32) { u16(UInt16(v >> 16)); u16(UInt16(v & 0xFFFF)) }
    }
}
