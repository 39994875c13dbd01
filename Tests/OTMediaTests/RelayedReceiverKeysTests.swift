import Foundation
import Testing
@testable import OTMedia

/// Relayed fan-out with keys per receiver (`PublisherConfiguration.relayedKeysPerReceiver`):
/// two receivers on raw sockets announce themselves with SRTCP under their own derived
/// keys; each gets copies it can decrypt and the other cannot (real libsrtp both ways), a
/// NACK is answered under the asker's keys, and RTCP that one receiver forges under
/// another's SSRC, or a made-up one, is refused and counted; a revoked receiver gets
/// nothing more.
@Suite struct RelayedReceiverKeysTests {
    /// One receiver on a raw loopback socket: its SSRC, its view of the derived keys, and
    /// an RTCP sender protecting with them.
    final class RawReceiver {
        let ssrc: UInt32
        let keys: SRTPLegKeys
        let socket: UDPSocket
        let pool = PacketBufferPool(initialCount: 64, bufferSize: 1600, headroom: 0)
        let rtcp: RTCPSender

        init(ssrc: UInt32, master: SRTPLegKeys, rtcpKeys: SRTPKeyMaterial? = nil) throws {
            self.ssrc = ssrc
            keys = master.relayedReceiver(ssrc: ssrc).reversed
            socket = try UDPSocket(bindingTo: .ipv4Loopback())
            rtcp = try RTCPSender(socket: socket, pool: pool, keys: rtcpKeys ?? keys.send, cname: "raw-\(ssrc)")
        }

        /// A receiver report (and SDES) from `ssrc` to the publisher.
        func report(to publisher: SocketAddress, as sender: UInt32? = nil) {
            let ssrc = sender ?? self.ssrc
            _ = rtcp.send(to: publisher) { writer throws(RTCPError) in
                try writer.append(ReceiverReport(ssrc: ssrc))
                try writer.append(SourceDescription(ssrc: ssrc, cname: rtcp.cname))
            }
        }

        /// A NACK for `sequence` of `mediaSSRC`.
        func nack(_ sequence: UInt16, of mediaSSRC: UInt32, to publisher: SocketAddress) {
            _ = [NACKPair(packetID: sequence)].withUnsafeBufferPointer { pairs in
                rtcp.send(to: publisher) { writer throws(RTCPError) in
                    try writer.append(ReceiverReport(ssrc: ssrc))
                    try writer.append(SourceDescription(ssrc: ssrc, cname: rtcp.cname))
                    try writer.append(GenericNACK(senderSSRC: ssrc, mediaSSRC: mediaSSRC, pairs: RTCPList(pairs)))
                }
            }
        }

        /// The SRTP (not SRTCP) datagrams that arrive within `seconds`, up to `count`.
        func collectRTP(count: Int, seconds: Double = 10) throws -> [[UInt8]] {
            var packets: [[UInt8]] = []
            let batch = UDPMessageBatch(capacity: 16)
            let buffers = (0..<16).map { _ in pool.take()! }
            defer { for buffer in buffers { pool.release(buffer) } }
            let deadline = Date().addingTimeInterval(seconds)
            while packets.count < count && Date() < deadline {
                _ = try socket.waitUntilReadable(timeoutNanoseconds: 50_000_000)
                let received = try socket.receive(into: buffers, batch: batch).count
                for buffer in buffers.prefix(received)
                where PacketClassifier.classify(UnsafeRawBufferPointer(buffer.bytes)) == .rtp {
                    packets.append(Array(buffer.bytes))
                }
            }
            return packets
        }
    }

    /// Whether `keys` (a fresh receiver session, so no replay state) decrypt `packet`;
    /// returns the sequence number when they do.
    static func unprotect(_ packet: [UInt8], with keys: SRTPKeyMaterial) throws -> UInt16? {
        let session = try SRTPSession(keys: keys, direction: .receiver)
        var bytes = packet
        return bytes.withUnsafeMutableBytes { raw -> UInt16? in
            guard (try? session.unprotect(raw, length: raw.count)) != nil else { return nil }
            return UInt16(raw[2]) << 8 | UInt16(raw[3])
        }
    }

    /// A started relayed publisher (160x120 15 fps test pattern and a tone) with keys per
    /// receiver under `master`, bound to loopback.
    static func startRelayedPublisher(master: SRTPLegKeys) throws -> (PublisherPipeline, PublisherConfiguration) {
        var configuration = PublisherConfiguration(destination: .ipv4Loopback(port: 9),
                                                   video: VP8EncoderSettings(width: 160, height: 120, frameRate: 15, bitrateKbps: 150),
                                                   audio: OpusEncoderSettings(format: .mono20ms))
        configuration.keys = master
        configuration.localAddress = .ipv4Loopback()
        configuration.relayedFanOut = true
        configuration.relayedKeysPerReceiver = true
        let publisher = try PublisherPipeline(
            configuration: configuration,
            videoSource: try TestPatternSource(format: VideoFormat(width: 160, height: 120, frameRate: 15)),
            audioSource: try ToneSource(frequency: 440, amplitude: 0.5, format: .mono20ms))
        try publisher.start()
        return (publisher, configuration)
    }

    @Test func derivedKeysAreTheReceiversOwnForEveryProfile() {
        for profile in [SRTPProfile.aeadAES128GCM, .aesCM128HMACSHA1_80, .aesCM128HMACSHA1_32] {
            let master = SRTPLegKeys.random(profile: profile)
            let a = master.relayedReceiver(ssrc: 0x0102_0304)
            let b = master.relayedReceiver(ssrc: 0x0102_0305)
            #expect(a == master.relayedReceiver(ssrc: 0x0102_0304), "the router and the publisher derive the same")
            #expect(a.send != b.send && a.receive != b.receive, "\(profile): one SSRC apart, other keys")
            #expect(a.send != a.receive && a.send != master.send && a.receive != master.receive)
            #expect(a.send.profile == profile && a.send.keyAndSalt.count == profile.keyMaterialLength)
            let other = SRTPLegKeys.random(profile: profile).relayedReceiver(ssrc: 0x0102_0304)
            #expect(other.send != a.send, "another master, other keys for the same SSRC")
        }
    }

    @Test func eachReceiverDecryptsOnlyItsOwnCopyAndCannotForgeAnothersRTCP() throws {
        let master = SRTPLegKeys.random(profile: .aeadAES128GCM)
        let (publisher, configuration) = try Self.startRelayedPublisher(master: master)
        defer { publisher.stop() }
        let address = publisher.localAddress

        let a = try RawReceiver(ssrc: 0xA0A0_0001, master: master)
        let b = try RawReceiver(ssrc: 0xB0B0_0002, master: master)
        #expect(a.keys.receive != b.keys.receive && a.keys.send != b.keys.send, "keys of their own")
        a.report(to: address)
        b.report(to: address)
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.transportCounters.snapshot().relayedDestinations == 2 })

        let toA = try a.collectRTP(count: 40)
        let toB = try b.collectRTP(count: 40)
        #expect(toA.count >= 40 && toB.count >= 40, "media reaches both: \(toA.count), \(toB.count)")
        let aReadsOwn = try toA.filter { try Self.unprotect($0, with: a.keys.receive) != nil }.count
        let bReadsOwn = try toB.filter { try Self.unprotect($0, with: b.keys.receive) != nil }.count
        let aReadsB = try toB.filter { try Self.unprotect($0, with: a.keys.receive) != nil }.count
        let bReadsA = try toA.filter { try Self.unprotect($0, with: b.keys.receive) != nil }.count
        let masterReads = try toB.filter { try Self.unprotect($0, with: master.send) != nil }.count
        #expect(aReadsOwn == toA.count && bReadsOwn == toB.count, "each decrypts all of its own copy")
        #expect(aReadsB == 0 && bReadsA == 0 && masterReads == 0, "nobody decrypts another's copy: \(aReadsB), \(bReadsA), \(masterReads)")

        // A NACK from B is answered under B's keys (the resend is protected anew for it).
        let videoSSRC = configuration.videoStream.ssrc
        let lost = try #require(toB.compactMap { packet -> UInt16? in
            guard packet.count > 12, UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11]) == videoSSRC
            else { return nil }
            return try? Self.unprotect(packet, with: b.keys.receive)
        }.last, "a video packet reached B")
        let resendsBefore = publisher.videoCounters.snapshot().retransmissions
        b.nack(lost, of: videoSSRC, to: address)
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.videoCounters.snapshot().retransmissions > resendsBefore })
        let later = try b.collectRTP(count: 60)
        #expect(try later.contains { try Self.unprotect($0, with: b.keys.receive) == lost }, "the resend decrypts under B's keys")

        // Both refresh themselves (a receiver silent for 5 s is dropped), then a third socket
        // speaks as B (B's SSRC) and as a made-up receiver, with A's keys: refused.
        a.report(to: address)
        b.report(to: address)
        let forger = try RawReceiver(ssrc: 0xC0C0_0003, master: master, rtcpKeys: a.keys.send)
        let badBefore = publisher.videoCounters.snapshot().badPackets
        forger.report(to: address, as: b.ssrc)
        forger.report(to: address)
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.videoCounters.snapshot().badPackets >= badBefore + 2 },
                "both forgeries are counted")
        #expect(publisher.transportCounters.snapshot().relayedDestinations == 2, "no destination added for the forger")
        let toForger = try forger.collectRTP(count: 1, seconds: 1)
        #expect(toForger.isEmpty, "the forger gets no media")

        // The signaling revokes B (it unsubscribed): B gets nothing more, and its own
        // correctly keyed RTCP no longer brings it back; A goes on.
        publisher.revokeRelayedReceivers([b.ssrc])
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.transportCounters.snapshot().relayedDestinations == 1 })
        let badAtRevocation = publisher.videoCounters.snapshot().badPackets
        b.report(to: address)
        #expect(TransportTestSupport.waitUntil(seconds: 10) { publisher.videoCounters.snapshot().badPackets > badAtRevocation },
                "the revoked receiver's RTCP is refused")
        _ = try b.collectRTP(count: 1000, seconds: 0.5)  // what was already on its way
        #expect(try b.collectRTP(count: 1, seconds: 1).isEmpty, "no media after the revocation")
        a.report(to: address)
        #expect(try a.collectRTP(count: 20).count >= 20, "the other receiver still gets the stream")
        #expect(publisher.transportCounters.snapshot().relayedDestinations == 1)
    }
}
