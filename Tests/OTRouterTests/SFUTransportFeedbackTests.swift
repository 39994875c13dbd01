import Foundation
import OTMedia
import OTRouter
import OTSignaling
import Testing

/// The router as the receiver of a publisher leg: every RTP packet's transport-wide
/// sequence number comes back in RTCP transport-wide feedback (PT 205 FMT 15) about
/// every 50 ms, probe packets included, and probes are never forwarded. The publisher
/// here is a raw SRTP sender on a real socket, so the test needs nothing from the
/// publisher pipeline's own congestion control.
@Suite(.serialized) struct SFUTransportFeedbackTests {
    /// Sends SRTP-protected RTP with the transport-wide element and reads the router's
    /// RTCP back.
    final class RawPublisher {
        let socket: UDPSocket
        let sender: SRTPSession
        let receiver: SRTPSession
        let destination: SocketAddress
        let pool = PacketBufferPool(initialCount: 64, bufferSize: 2048, headroom: 0)
        let batch = UDPMessageBatch(capacity: 32)
        var transport: UInt16 = 65_500  // wraps during the test
        var feedbackStatuses: [UInt16: Bool] = [:]
        var feedbacks = 0

        init(leg: WireMediaLeg) throws {
            socket = try UDPSocket(bindingTo: .ipv4Loopback(), receiveBufferBytes: 1 << 20, sendBufferBytes: 1 << 20)
            let keys = try LegClient.keys(leg)
            sender = try SRTPSession(keys: keys.send, direction: .sender)
            receiver = try SRTPSession(keys: keys.receive, direction: .receiver)
            destination = try LegClient.address(leg)
        }

        /// One packet: `ssrc`/`payloadType`, a one-byte extension block with the next
        /// transport-wide number, then `payload` (a probe: padding only).
        func send(ssrc: UInt32, payloadType: UInt8, sequence: UInt16, probe: Bool = false) throws {
            let buffer = try #require(pool.take())
            defer { pool.release(buffer) }
            var bytes: [UInt8] = [probe ? 0xB0 : 0x90, payloadType | 0x80, UInt8(sequence >> 8), UInt8(sequence & 0xFF),
                                  0, 0, 0x10, 0, UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xFF), UInt8(ssrc >> 8 & 0xFF), UInt8(ssrc & 0xFF),
                                  0xBE, 0xDE, 0, 1, RTPExtensionID.transportWideSequence << 4 | 1,
                                  UInt8(transport >> 8), UInt8(transport & 0xFF), 0]
            transport &+= 1
            if probe {
                bytes += [UInt8](repeating: 0, count: 99) + [100]
            } else {
                bytes += [0x90, 0x80, 0x80, 0x01, 0x01, 0x00, 0x00] + [UInt8](repeating: 0x55, count: 200)  // a VP8 inter frame
            }
            bytes.withUnsafeBytes { _ = buffer.assign($0) }
            buffer.setLength(try sender.protect(buffer.writableBytes, length: buffer.length))
            buffer.peer = destination
            _ = try socket.send([buffer], batch: batch)
        }

        /// Reads whatever RTCP the router sent and notes the feedback's statuses.
        func drain() {
            var buffers: [PacketBuffer] = []
            for _ in 0..<32 { if let b = pool.take() { buffers.append(b) } }
            defer { for b in buffers { pool.release(b) } }
            while case .processed(let n)? = try? socket.receive(into: buffers, batch: batch), n > 0 {
                for buffer in buffers.prefix(n) {
                    guard let length = try? receiver.unprotectRTCP(buffer.writableBytes, length: buffer.length),
                          let compound = try? RTCPCompoundPacket(validating: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer.writableBytes)[0..<length]))
                    else { continue }
                    var packets = compound.makeIterator()
                    while let packet = packets.next() {
                        guard case .transportWideFeedback(let feedback) = packet else { continue }
                        feedbacks += 1
                        for status in feedback.packets { feedbackStatuses[status.sequenceNumber, default: false] = feedbackStatuses[status.sequenceNumber, default: false] || status.isReceived }
                    }
                }
                for b in buffers { b.reset() }
            }
        }

        func close() { socket.close() }
    }

    @Test func everyPacketIsReportedBackAndProbesAreDroppedNotForwarded() throws {
        let router = try MediaRouter()
        let publisherLeg = try router.addPublisher(streamId: "s1", audio: false, video: true)
        let subscriberLeg = try router.addSubscriber(subscriberId: "a", streamId: "s1", audio: false, video: true)
        let subscriber = try TestSubscriber(leg: subscriberLeg)
        let publisher = try RawPublisher(leg: publisherLeg)
        defer { subscriber.stop(); publisher.close(); router.removePublisher(streamId: "s1") }
        let videoSSRC = try #require(publisherLeg.videoSSRC)
        // The router sends a leg nothing before the subscriber's first RTCP gave its address.
        #expect(waitUntil(seconds: 10) { (router.counters(streamId: "s1")?.receiverReports ?? 0) > 0 })
        let first = publisher.transport
        var sent: [UInt16] = []
        for index in 0..<200 {
            sent.append(publisher.transport)
            if index % 5 == 4 {
                try publisher.send(ssrc: RTPProbe.ssrc, payloadType: RTPProbe.payloadType, sequence: UInt16(index), probe: true)
            } else {
                try publisher.send(ssrc: videoSSRC, payloadType: 96, sequence: UInt16(index))
            }
            if index % 10 == 0 { Thread.sleep(forTimeInterval: 0.01); publisher.drain() }
        }
        waitUntil(seconds: 5) {
            publisher.drain()
            return sent.allSatisfy { publisher.feedbackStatuses[$0] == true }
        }
        let reported = sent.filter { publisher.feedbackStatuses[$0] == true }.count
        #expect(reported == sent.count, "every packet, probes too, reported received: \(reported) of \(sent.count) from \(first)")
        #expect(publisher.feedbacks >= 3, "feedback comes every ~50 ms, not once: \(publisher.feedbacks)")
        let counters = try #require(router.counters(streamId: "s1"))
        #expect(counters.probesReceived == 40)
        #expect(counters.transportFeedbacksOut >= 3)
        #expect(counters.unknownSSRCPackets == 0, "probes are not unknown media")
        waitUntil(seconds: 2) { subscriber.pipeline.videoCounters.snapshot().packets >= 160 }
        #expect(subscriber.pipeline.videoCounters.snapshot().packets == 160, "media forwarded, probes not")
    }
}
